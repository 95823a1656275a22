"""Text regions as a layout detector cuts them: single lines (most of them), tiny crops, form fields,
invoice and receipt rows, headings, list items and paragraphs of up to ten lines.

The target is the visible text, lines joined by '\\n' and words by one space, whatever the gaps on paper.
"""

import random
from dataclasses import dataclass

from . import corpus, phrases
from .fonts import covering_face
from .typeset import Ink, Setter, TextStyle, typeset, wrap


@dataclass
class TextLayout:
    lines: list[list[str]] | None = None  # segments per line, already broken
    prose: list[str] | None = None  # words to wrap into a paragraph
    genre: str | None = None
    bold: bool = False
    italic: bool = False
    sizes: tuple[int, int] = (17, 44)  # em size in pixels
    align: str = "left"
    look: str | None = None  # forces a print look (receipts are thermal)
    list_marker: str | None = None  # hanging marker before wrapped prose


def _prose_line(rng: random.Random) -> TextLayout:
    n = rng.choice((1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 5, 6, 7, 8, 9, 10))
    return TextLayout(lines=[[" ".join(corpus.words_span(rng, n))]], italic=rng.random() < 0.08,
                      bold=rng.random() < 0.05)


def _short(rng: random.Random) -> TextLayout:
    return TextLayout(lines=[[phrases.short_crop(rng)]], bold=rng.random() < 0.25, sizes=(17, 48))


def _field(rng: random.Random) -> TextLayout:
    make = rng.choice((phrases.field, phrases.field, phrases.person, phrases.company, phrases.street,
                       phrases.city_line, phrases.date, phrases.email, phrases.url, phrases.phone))
    return TextLayout(lines=[[make(rng)]], bold=rng.random() < 0.1)


def _ledger_line(rng: random.Random) -> TextLayout:
    if rng.random() < 0.5:
        return TextLayout(lines=[phrases.receipt_line(rng)], genre="mono", look="thermal" if rng.random() < 0.6 else None)
    return TextLayout(lines=[phrases.invoice_line(rng)])


def _heading(rng: random.Random) -> TextLayout:
    return TextLayout(lines=[[phrases.heading(rng)]], bold=rng.random() < 0.75, sizes=(22, 60),
                      align=rng.choice(("left", "center")))


def _list_item(rng: random.Random) -> TextLayout:
    words = corpus.words_span(rng, rng.randint(2, 11))
    return TextLayout(lines=[[phrases.list_marker(rng, rng.randrange(8)) + " " + " ".join(words)]])


def _paragraph(rng: random.Random) -> TextLayout:
    return TextLayout(prose=corpus.words_span(rng, rng.randint(12, 110)), sizes=(15, 30),
                      align=rng.choice(("left", "justify", "justify", "left", "center")),
                      italic=rng.random() < 0.05)


def _wrapped_list_item(rng: random.Random) -> TextLayout:
    return TextLayout(prose=corpus.words_span(rng, rng.randint(12, 45)), sizes=(15, 30),
                      list_marker=phrases.list_marker(rng, rng.randrange(8)))


def _block(rng: random.Random) -> TextLayout:
    choice = rng.random()
    if choice < 0.35:
        return TextLayout(lines=[[line] for line in phrases.address_block(rng)], sizes=(15, 34))
    if choice < 0.65:
        rows = [phrases.receipt_line(rng) for _ in range(rng.randint(2, 8))]
        return TextLayout(lines=rows, genre="mono", sizes=(15, 30), look="thermal" if rng.random() < 0.6 else None)
    if choice < 0.8:
        return TextLayout(lines=[[phrases.field(rng)] for _ in range(rng.randint(2, 6))], sizes=(15, 32))
    return TextLayout(lines=[[phrases.list_marker(rng, i) + " " + " ".join(corpus.words_span(rng, rng.randint(2, 9)))]
                             for i in range(rng.randint(2, 6))], sizes=(15, 32))


KINDS = (  # generator, share of text regions
    (_prose_line, 0.28), (_short, 0.13), (_field, 0.12), (_ledger_line, 0.08), (_heading, 0.07),
    (_list_item, 0.06), (_paragraph, 0.16), (_wrapped_list_item, 0.03), (_block, 0.07),
)


def layout_text(rng: random.Random) -> TextLayout:
    make = rng.choices([k for k, _ in KINDS], weights=[w for _, w in KINDS])[0]
    return make(rng)


def _style(rng: random.Random, layout: TextLayout, text: str, size: int) -> TextStyle:
    face = covering_face(rng, text, layout.genre, layout.bold, layout.italic)
    tracking = 0.0
    if rng.random() < 0.12:
        tracking = size * rng.uniform(-0.03, 0.12)
    return TextStyle(face=face, size=size, tracking=tracking, leading=rng.uniform(1.0, 1.45), align=layout.align,
                     word_space=rng.uniform(0.85, 1.5))


def render_text(rng: random.Random, layout: TextLayout, size: int | None = None,
                width: float | None = None) -> tuple[Ink, str]:
    """Ink and target of a text layout; `width` is the column width for prose (drawn when not given)."""
    size = size or rng.randint(*layout.sizes)
    if layout.prose is not None:
        marker = layout.list_marker
        text = " ".join(layout.prose) + (marker or "")
        style = _style(rng, layout, text, size)
        setter = Setter(style)
        width = width or size * rng.uniform(14, 38)
        if marker:
            indent = setter.width(marker) + setter.space
            body = wrap(layout.prose, setter, width - indent)
            lines = [marker + " " + body[0]] + body[1:]
            ink = typeset([[ln] for ln in lines], style, width, indents=[0.0] + [indent] * (len(lines) - 1))
        else:
            lines = wrap(layout.prose, setter, width)
            ink = typeset([[ln] for ln in lines], style, width)
        return ink, "\n".join(lines)
    lines = layout.lines or [[""]]
    text = " ".join(" ".join(line) for line in lines)
    style = _style(rng, layout, text, size)
    if len(lines) > 1 and any(len(line) > 1 for line in lines):
        width = max(Setter(style).segment_width(" ".join(line)) for line in lines) * rng.uniform(1.05, 1.5)
    ink = typeset(lines, style, width)
    return ink, "\n".join(" ".join(" ".join(seg.split()) for seg in line) for line in lines)
