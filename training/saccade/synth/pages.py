"""Whole pages: running header and footer, a title, one or two columns of paragraphs, lists, tables,
formulas and figures, with the layout of every block and its reading order.

Blocks are stacked down each column with gaps, so region boxes never overlap. Reading order runs header,
full-width title, first column top to bottom, second column, footer; figures have no order.
"""

import random

import numpy as np
from PIL import Image, ImageDraw

from . import corpus, phrases, scan
from .fonts import covering_face
from .formulas import make_formula
from .samples import Page
from .tables import build_cells, render_table, to_html
from .text_blocks import TextLayout, render_text
from .typeset import Ink, paste, scaled


def _figure(rng: random.Random, width: int, height: int) -> np.ndarray:
    """A plain chart: bars or a polyline in a frame with tick marks."""
    canvas = Image.new("L", (width, height), 0)
    draw = ImageDraw.Draw(canvas)
    draw.rectangle([0, 0, width - 1, height - 1], outline=255, width=rng.choice((1, 2)))
    left, bottom = width // 10, height - height // 8
    draw.line([left, height // 12, left, bottom, width - width // 20, bottom], fill=255, width=2)
    n = rng.randint(4, 12)
    step = (width - left - width // 20) / n
    if rng.random() < 0.5:
        for i in range(n):
            top = bottom - rng.uniform(0.1, 0.85) * (bottom - height // 12)
            draw.rectangle([left + i * step + step * 0.2, top, left + (i + 0.8) * step, bottom],
                           fill=rng.choice((90, 160, 255)), outline=255)
    else:
        points = [(left + (i + 0.5) * step, bottom - rng.uniform(0.1, 0.85) * (bottom - height // 12)) for i in range(n)]
        draw.line(points, fill=255, width=2)
        for x, y in points:
            draw.ellipse([x - 3, y - 3, x + 3, y + 3], fill=255)
    for i in range(n + 1):
        draw.line([left + i * step, bottom, left + i * step, bottom + 5], fill=255)
    return np.asarray(canvas)


def _trimmed(ink: Ink) -> np.ndarray:
    x0, y0, x1, y1 = scan.ink_bounds(ink.coverage, threshold=0) or (0, 0, 1, 1)
    return ink.coverage[y0:y1, x0:x1]


class PageBuilder:
    def __init__(self, rng: random.Random, width: int, height: int):
        self.rng = rng
        self.coverage = np.zeros((height, width), dtype=np.uint8)
        self.regions: list[dict] = []
        self.body_size = rng.randint(13, 20)
        self.leading = rng.uniform(1.0, 1.35)
        probe = " ".join(corpus.words_span(rng, 40))
        self.face = covering_face(rng, probe, rng.choice(("serif", "serif", "sans")))

    @staticmethod
    def fit(ink: Ink, max_width: int) -> np.ndarray:
        """The block's ink, trimmed, and shrunk when wider than the column."""
        coverage = _trimmed(ink)
        if coverage.shape[1] > max_width:
            coverage = _trimmed(scaled(Ink(coverage), max_width / coverage.shape[1]))
        return coverage

    def put(self, coverage: np.ndarray, x: int, y: int, kind: str, target: str, column: int = 0) -> int:
        """Print a fitted block with its top-left corner at (x, y); returns its height."""
        h, w = coverage.shape
        paste(self.coverage, coverage, x, y)
        self.regions.append(dict(box=(x, y, x + w, y + h), kind=kind, order=None, target=target, column=column))
        return h

    def text(self, layout: TextLayout, width: int, size: int | None = None) -> tuple[Ink, str]:
        layout.leading = self.leading
        return render_text(self.rng, layout, size=size or self.body_size, width=width, face=self.face)


def _caption(rng: random.Random, label: str) -> str:
    words = corpus.words_span(rng, rng.randint(3, 12)) if rng.random() < 0.5 else phrases.heading(rng).split()
    return f"{label} {rng.randint(1, 12)}{rng.choice(('.', ':', ' —', ''))} " + " ".join(words)


def _column_blocks(builder: PageBuilder, rng: random.Random, width: int) -> list[tuple[Ink, str, str]]:
    """The next group of blocks for a column: one block, or a table or figure with its caption."""
    choice = rng.random()
    if choice < 0.55:
        ink, target = builder.text(TextLayout(prose=corpus.words_span(rng, rng.randint(20, 140), sentence_start=True),
                                              align=rng.choice(("left", "justify")), max_lines=60), width)
        return [(ink, "text", target)]
    if choice < 0.65:
        ink, target = builder.text(TextLayout(lines=[[phrases.heading(rng)]], bold=True), width,
                                   size=int(builder.body_size * rng.uniform(1.1, 1.5)))
        return [(ink, "title", target)]
    if choice < 0.77:
        style = phrases.list_style(rng)
        items = [phrases.list_marker(style, i) + " " + " ".join(corpus.words_span(rng, rng.randint(3, 10), True))
                 for i in range(rng.randint(2, 5))]
        ink, target = builder.text(TextLayout(lines=[[item] for item in items]), width)
        return [(ink, "list", target)]
    if choice < 0.89:
        cells, n_rows, n_cols, kinds = build_cells(rng)
        group = [(render_table(rng, cells, n_rows, n_cols, kinds, size=max(11, builder.body_size - 2)), "table",
                  to_html(cells, n_rows))]
        if rng.random() < 0.6:
            ink, target = builder.text(TextLayout(lines=[[_caption(rng, "Table")]]), width)
            group.insert(0, (ink, "text", target))
        return group
    if choice < 0.95:
        ink, target = make_formula(rng, em=builder.body_size * rng.uniform(1.15, 1.5))
        return [(ink, "formula", target)]
    figure_width = int(width * rng.uniform(0.5, 1.0))
    group = [(Ink(_figure(rng, figure_width, int(figure_width * rng.uniform(0.4, 0.7)))), "figure", "")]
    if rng.random() < 0.8:
        ink, target = builder.text(TextLayout(lines=[[_caption(rng, rng.choice(("Figure", "Fig.")))]]), width)
        group.append((ink, "text", target))
    return group


def generate_page(seed: int) -> Page:
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    width = rng.randint(820, 1240)
    height = int(width * rng.choice((1.294, 1.414)))
    builder = PageBuilder(rng, width, height)
    margin_x, margin_y = int(width * rng.uniform(0.06, 0.12)), int(height * rng.uniform(0.04, 0.08))
    gap = max(12, builder.body_size)
    y = margin_y
    text_width = width - 2 * margin_x
    footer_height = 0

    small = max(10, builder.body_size - 3)
    if rng.random() < 0.6:
        ink, target = builder.text(TextLayout(lines=[[rng.choice((phrases.company, phrases.heading))(rng)]]),
                                   text_width, size=small)
        y += builder.put(builder.fit(ink, text_width), margin_x, y, "header", target) + gap
    if rng.random() < 0.6:
        footer = rng.choice((f"Page {rng.randint(1, 40)}", str(rng.randint(1, 300)),
                             f"{phrases.company(rng)} · Confidential", phrases.url(rng)))
        ink, target = builder.text(TextLayout(lines=[[footer]]), text_width, size=small)
        coverage = builder.fit(ink, text_width)
        footer_y = height - margin_y - coverage.shape[0]
        footer_height = builder.put(coverage, margin_x + (text_width - coverage.shape[1]) // 2, footer_y, "footer",
                                    target) + gap
    if rng.random() < 0.6:
        ink, target = builder.text(TextLayout(lines=[[phrases.heading(rng)]], bold=True), text_width,
                                   size=int(builder.body_size * rng.uniform(1.5, 2.2)))
        y += builder.put(builder.fit(ink, text_width), margin_x, y, "title", target) + gap

    columns = 2 if rng.random() < 0.3 else 1
    column_gap = int(width * 0.04)
    column_width = (text_width - column_gap * (columns - 1)) // columns
    bottom = height - margin_y - footer_height
    for c in range(columns):
        x, cy = margin_x + c * (column_width + column_gap), y
        for _ in range(12):
            group = [(builder.fit(ink, column_width), kind, target)
                     for ink, kind, target in _column_blocks(builder, rng, column_width)]
            if cy + sum(cov.shape[0] + gap for cov, _, _ in group) - gap > bottom:
                break
            for coverage, kind, target in group:
                cy += builder.put(coverage, x, cy, kind, target, column=c) + gap

    order = 0
    for region in sorted(builder.regions, key=_reading_key):
        if region["kind"] != "figure":
            region["order"] = order
            order += 1
    for region in builder.regions:
        del region["column"]
    look = scan.pick_look(rng)
    image = scan.degrade(scan.print_on_paper(builder.coverage, look, rng, nrng), look, rng, nrng)
    regions = sorted(builder.regions, key=lambda r: (r["order"] is None, r["order"] or 0))
    return Page(image=image, regions=regions)


def _reading_key(region: dict) -> tuple:
    rank = {"header": 0, "footer": 2}.get(region["kind"], 1)
    return rank, region["column"], region["box"][1]
