"""Behaviour of the page generator: reproducibility, layout without overlaps, reading order."""

from itertools import combinations

import pytest

from saccade.synth import generate_page

KINDS = {"text", "title", "table", "formula", "header", "footer", "figure", "list"}


@pytest.fixture(scope="module")
def pages():
    return [generate_page(seed) for seed in range(5)]


def test_same_seed_same_page(pages):
    again = generate_page(1)
    assert again.image.tobytes() == pages[1].image.tobytes() and again.regions == pages[1].regions


def test_regions_lie_inside_and_do_not_overlap(pages):
    for page in pages:
        h, w = page.image.shape
        assert page.regions
        for r in page.regions:
            x0, y0, x1, y1 = r["box"]
            assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h and r["kind"] in KINDS
        for a, b in combinations(page.regions, 2):
            ax0, ay0, ax1, ay1 = a["box"]
            bx0, by0, bx1, by1 = b["box"]
            assert ax1 <= bx0 or bx1 <= ax0 or ay1 <= by0 or by1 <= ay0, (a, b)


def test_reading_order_is_a_permutation_and_follows_the_page(pages):
    for page in pages:
        ordered = [r for r in page.regions if r["order"] is not None]
        assert sorted(r["order"] for r in ordered) == list(range(len(ordered)))
        assert all(r["order"] is None for r in page.regions if r["kind"] == "figure")
        by_order = sorted(ordered, key=lambda r: r["order"])
        if by_order[0]["kind"] != "header" and any(r["kind"] == "header" for r in ordered):
            pytest.fail("header is not read first")
        body = [r for r in by_order if r["kind"] not in ("header", "footer")]
        for earlier, later in zip(body, body[1:]):
            # within a column the next block is lower; a new column starts to the right
            assert later["box"][1] > earlier["box"][1] or later["box"][0] > earlier["box"][0]


def test_text_regions_have_targets(pages):
    for page in pages:
        for r in page.regions:
            assert (r["target"] == "") == (r["kind"] == "figure")
