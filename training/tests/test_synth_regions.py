"""Behaviour of the region generator: reproducibility, vocabulary, box geometry, table structure, mixture."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from saccade.synth import generate_region
from saccade.vocab import ALL_TOKENS, LATEX_COMMANDS, SPECIAL_TOKENS

TOKENS = sorted(set(ALL_TOKENS) - set(SPECIAL_TOKENS), key=len, reverse=True)
SEEDS = range(120)


def tokenize(text: str) -> list[str] | None:
    """Greedy longest match over the vocabulary; None when some text is not covered."""
    out, i = [], 0
    while i < len(text):
        for token in TOKENS:
            if text.startswith(token, i):
                out.append(token)
                i += len(token)
                break
        else:
            return None
    return out


@pytest.fixture(scope="module")
def regions():
    return [generate_region(seed) for seed in SEEDS]


def test_same_seed_same_bytes_and_target():
    for seed in (0, 7, 123):
        for kind in (None, "text", "table", "formula"):
            a, b = generate_region(seed, kind), generate_region(seed, kind)
            assert a.image.tobytes() == b.image.tobytes() and a.image.shape == b.image.shape
            assert a.target == b.target and a.words == b.words and a.chars == b.chars


def test_different_seeds_differ(regions):
    assert len({r.target for r in regions}) > len(regions) * 0.95


def test_images_are_grayscale_uint8(regions):
    for r in regions:
        assert r.image.dtype == np.uint8 and r.image.ndim == 2 and min(r.image.shape) >= 8


def test_targets_use_only_the_vocabulary(regions):
    for r in regions:
        assert r.target.strip(), r
        assert tokenize(r.target) is not None, r.target


def test_formula_targets_are_normalised_tokens():
    single = set(ALL_TOKENS) | set(LATEX_COMMANDS)
    for seed in range(30):
        target = generate_region(seed, "formula").target
        assert target == " ".join(target.split())
        for token in target.split():
            assert token in single, (token, target)


def test_words_and_chars_match_the_target():
    for seed in range(40):
        r = generate_region(seed, "text")
        assert [w for w, _ in r.words] == r.target.split()
        assert "".join(c for c, _ in r.chars) == "".join(r.target.split())


def test_boxes_lie_inside_the_image_and_cover_ink():
    for seed in range(50):
        r = generate_region(seed, "text" if seed % 3 else "table")
        h, w = r.image.shape
        paper = float(np.percentile(r.image, 90))
        for text, (x0, y0, x1, y1) in r.words:
            assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h, (text, (x0, y0, x1, y1), r.image.shape)
            darkest = float(r.image[y0:y1, x0:x1].min())
            assert darkest < paper - 25, (seed, text, darkest, paper)
        for _, (x0, y0, x1, y1) in r.chars:
            assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h


def test_table_targets_are_well_formed_grids():
    for seed in range(30):
        r = generate_region(seed, "table")
        root = ET.fromstring(r.target)
        assert root.tag == "table" and all(row.tag == "tr" for row in root)
        occupied: dict[tuple[int, int], bool] = {}
        widths = []
        for y, row in enumerate(root):
            x = 0
            for cell in row:
                assert cell.tag == "td" and len(cell) == 0
                assert not ("colspan" in cell.attrib and "rowspan" in cell.attrib)
                while occupied.get((y, x)):
                    x += 1
                cs, rs = int(cell.get("colspan", 1)), int(cell.get("rowspan", 1))
                for dy in range(rs):
                    for dx in range(cs):
                        assert not occupied.get((y + dy, x + dx)), r.target
                        occupied[(y + dy, x + dx)] = True
                x += cs
            widths.append(max(x for (yy, x) in [(k[0], k[1] + 1) for k in occupied] if yy == y))
        assert len(set(widths)) == 1, r.target
        assert r.image.shape[0] <= 900 and r.image.shape[1] <= 700


def test_kind_mixture_and_short_crops(regions):
    kinds = [r.kind for r in regions]
    assert 0.6 < kinds.count("text") / len(kinds) < 0.8
    assert kinds.count("table") > 8 and kinds.count("formula") > 4
    texts = [r for r in regions if r.kind == "text"]
    assert sum(len(r.target.split()) <= 2 for r in texts) >= 8
    assert sum("\n" in r.target for r in texts) >= 8


def test_single_line_crops_have_line_height(regions):
    heights = [r.image.shape[0] for r in regions if r.kind == "text" and "\n" not in r.target]
    assert heights and 18 <= min(heights) and max(heights) <= 100
    assert 24 <= float(np.median(heights)) <= 64


def test_unknown_kind_is_rejected():
    with pytest.raises(ValueError):
        generate_region(0, "picture")


def _digest_script() -> str:
    return (
        "import hashlib\n"
        "from saccade.synth import generate_region\n"
        "h = hashlib.sha256()\n"
        "for seed, kind in ((1, 'text'), (2, 'text'), (3, 'table'), (4, 'formula')):\n"
        "    r = generate_region(seed, kind)\n"
        "    h.update(r.image.tobytes()); h.update(r.target.encode()); h.update(repr(r.words).encode())\n"
        "print(h.hexdigest())\n"
    )


def test_output_does_not_depend_on_the_process():
    """Data-loader workers are separate processes, each with its own string-hash seed."""
    import contextlib
    import io
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONHASHSEED=str(hash("salt") % 1000 + 1), PYTHONPATH=root)
    other = subprocess.run([sys.executable, "-c", _digest_script()], env=env, capture_output=True, text=True,
                           check=True).stdout.strip()
    here = io.StringIO()
    with contextlib.redirect_stdout(here):
        exec(_digest_script(), {})
    assert other == here.getvalue().strip()
