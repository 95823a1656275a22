"""Text regions as a layout detector cuts them: single lines (most of them), tiny crops, form fields,
invoice and receipt rows, headings, list items and paragraphs of up to ten lines.

The target is the visible text, lines joined by '\\n' and words by one space, whatever the gaps on paper.
"""

import random
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from . import corpus, phrases
from .fonts import Face, catalogue, covering_face, pick_face
from .typeset import Ink, Setter, TextStyle, paste, typeset, wrap


# How a crop prints its quotes, dashes and ellipses. "any": typeset forms on 30% of crops whatever the face
# (every run up to line-v6). "by-face": a proportional face prints them on TYPESET_SHARE of its crops, as word
# processors do, and a monospaced face (typewriter, till) never does. The real pages' curly apostrophes were
# read straight and sure (decision 0042). Set per process, like corpus.GERMAN_SHARE, so that every seed made
# before still gives the same region.
QUOTES = "any"
TYPESET_SHARE = 0.8
# The share of monospaced crops typed as on a typewriter without a "1" key, its ones struck with "l" (old
# typescripts date "l937"; their transcripts write the digit). At 0 (every run up to line-v8) no random
# number is drawn for it, so every seed made before still gives the same region.
TYPEWRITER_ONES = 0.0


def set_typewriter_ones(share: float) -> None:
    """Sets TYPEWRITER_ONES for this process."""
    global TYPEWRITER_ONES
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"typewriter ones share {share} is not in [0, 1]")
    TYPEWRITER_ONES = share


def set_quotes(policy: str) -> None:
    """Sets QUOTES for this process."""
    global QUOTES
    if policy not in ("any", "by-face"):
        raise ValueError(f"unknown quote policy {policy!r}")
    QUOTES = policy


@dataclass
class TextLayout:
    lines: list[list[str]] | None = None  # segments per line, already broken
    prose: list[str] | None = None  # words to wrap into a paragraph
    genre: str | None = None
    bold: bool = False
    italic: bool = False
    sizes: tuple[int, int] = (20, 48)  # em size in pixels: crops of 24-64 px per line
    align: str = "left"
    look: str | None = None  # forces a print look (receipts are thermal)
    list_marker: str | None = None  # hanging marker before wrapped prose
    max_lines: int = 10  # a paragraph crop longer than this is cut after its tenth line
    leading: float | None = None  # line pitch factor; drawn when not given
    neighbour_share: float = 0.0  # how often a single line is cut from a block, neighbours peeking in
    underline: bool = False
    bold_label_words: int = 0  # a form label printed bold before its regular value


def _prose_line(rng: random.Random) -> TextLayout:
    n = rng.choice((1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 5, 6, 7, 8, 9, 10))
    words = phrases.sentence(rng).split() if rng.random() < 0.25 else corpus.crop_words(rng, n)
    return TextLayout(lines=[[" ".join(words)]], italic=rng.random() < 0.08,
                      bold=rng.random() < 0.05, neighbour_share=0.3)


def _short(rng: random.Random) -> TextLayout:
    return TextLayout(lines=[[phrases.short_crop(rng)]], bold=rng.random() < 0.25, sizes=(20, 52),
                      underline=rng.random() < 0.05)


def _field(rng: random.Random) -> TextLayout:
    make = rng.choice((phrases.field, phrases.field, phrases.person, phrases.company, phrases.street,
                       phrases.city_line, phrases.date, phrases.email, phrases.url, phrases.phone,
                       phrases.measurement))
    text = make(rng)
    if make is phrases.field and ":" in text and rng.random() < 0.6:
        label_words = len(text[:text.index(":") + 1].split())
        return TextLayout(lines=[[text]], bold_label_words=label_words)
    return TextLayout(lines=[[text]], bold=rng.random() < 0.1, neighbour_share=0.15)


def _ledger_line(rng: random.Random) -> TextLayout:
    choice = rng.random()
    if choice < 0.4:
        line = [phrases.receipt_field(rng)] if choice < 0.15 else phrases.receipt_line(rng)
        return TextLayout(lines=[line], genre="mono", look="thermal" if rng.random() < 0.6 else None)
    if choice < 0.7:
        return TextLayout(lines=[phrases.catalog_line(rng)])
    return TextLayout(lines=[phrases.invoice_line(rng)])


def _heading(rng: random.Random) -> TextLayout:
    return TextLayout(lines=[[phrases.heading(rng)]], bold=rng.random() < 0.75, sizes=(22, 60),
                      align=rng.choice(("left", "center")), underline=rng.random() < 0.15)


def _list_item(rng: random.Random) -> TextLayout:
    words = corpus.crop_words(rng, rng.randint(2, 11))
    marker = phrases.list_marker(phrases.list_style(rng), rng.randrange(8))
    return TextLayout(lines=[[marker + " " + " ".join(words)]])


def _paragraph(rng: random.Random) -> TextLayout:
    if rng.random() < 0.2:
        words = " ".join(phrases.sentence(rng) for _ in range(rng.randint(2, 6))).split()
    else:
        words = corpus.crop_words(rng, rng.randint(12, 110))
    return TextLayout(prose=words, sizes=(15, 30),
                      align=rng.choice(("left", "justify", "justify", "left", "center")),
                      italic=rng.random() < 0.05, max_lines=rng.randint(2, 10))


def _wrapped_list_item(rng: random.Random) -> TextLayout:
    return TextLayout(prose=corpus.crop_words(rng, rng.randint(12, 45)), sizes=(15, 30),
                      list_marker=phrases.list_marker(phrases.list_style(rng), rng.randrange(8)),
                      max_lines=rng.randint(2, 5))


def _block(rng: random.Random) -> TextLayout:
    choice = rng.random()
    if choice < 0.35:
        return TextLayout(lines=[[line] for line in phrases.address_block(rng)], sizes=(15, 34))
    if choice < 0.65:
        rows = [phrases.receipt_line(rng) for _ in range(rng.randint(2, 8))]
        if rng.random() < 0.5:  # the till's header above the items, or its totals and notes below
            fields = [[phrases.receipt_field(rng)] for _ in range(rng.randint(1, 4))]
            rows = fields + rows if rng.random() < 0.5 else rows + fields
        return TextLayout(lines=rows, genre="mono", sizes=(15, 30), look="thermal" if rng.random() < 0.6 else None)
    if choice < 0.8:
        return TextLayout(lines=[[phrases.field(rng)] for _ in range(rng.randint(2, 6))], sizes=(15, 32))
    style = phrases.list_style(rng)
    return TextLayout(lines=[[phrases.list_marker(style, i) + " " + " ".join(corpus.crop_words(rng, rng.randint(2, 9)))]
                             for i in range(rng.randint(2, 6))], sizes=(15, 32))


KINDS = (  # generator, share of text regions
    (_prose_line, 0.28), (_short, 0.13), (_field, 0.12), (_ledger_line, 0.08), (_heading, 0.07),
    (_list_item, 0.06), (_paragraph, 0.16), (_wrapped_list_item, 0.03), (_block, 0.07),
)


def layout_text(rng: random.Random) -> TextLayout:
    make = rng.choices([k for k, _ in KINDS], weights=[w for _, w in KINDS])[0]
    layout = make(rng)
    if QUOTES == "any" and rng.random() < 0.3:  # typeset documents print curly quotes and real dashes
        _restyle(layout, phrases.typographic)
    # Forms, receipts and notices print whole lines in capitals; without these the only capitals in the
    # corpus are licence disclaimers, and the model wrote "WARRANTY" over a receipt's product names.
    if rng.random() < 0.06:
        _restyle(layout, phrases.capitals)
    return layout


def _printed_text(layout: TextLayout) -> str:
    if layout.prose is not None:
        return " ".join(layout.prose) + (layout.list_marker or "")
    return " ".join(" ".join(line) for line in layout.lines or [[""]])


def _typeset_by_face(rng: random.Random, layout: TextLayout, face: Face | None) -> Face:
    """The face the layout is printed in, its quotes restyled the way documents in that face print them."""
    text = _printed_text(layout)
    if face is None or not face.covers(text):
        face = covering_face(rng, text, layout.genre, layout.bold, layout.italic)
    if face.genre != "mono" and rng.random() < TYPESET_SHARE:
        typeset_layout = replace(layout)
        _restyle(typeset_layout, phrases.typographic)
        if face.covers(_printed_text(typeset_layout)):
            layout.prose, layout.lines = typeset_layout.prose, typeset_layout.lines
    return face


def _restyle(layout: TextLayout, style: Callable[[str], str]) -> None:
    """Applies a text transform to everything the layout prints (prose as one run, so quotes see the word
    before them)."""
    if layout.prose is not None:
        layout.prose = style(" ".join(layout.prose)).split()
    if layout.lines is not None:
        layout.lines = [[style(seg) for seg in line] for line in layout.lines]


def _style(rng: random.Random, layout: TextLayout, text: str, size: int, face: Face | None = None) -> TextStyle:
    if face is None or not face.covers(text):
        face = covering_face(rng, text, layout.genre, layout.bold, layout.italic)
    elif layout.bold or layout.italic:
        face = pick_face(rng, _family_of(face), text, layout.bold, layout.italic)
    tracking = 0.0
    if rng.random() < 0.12:
        tracking = size * rng.uniform(-0.03, 0.12)
    leading = layout.leading or rng.uniform(1.0, 1.45)
    glyphs = ()
    if TYPEWRITER_ONES > 0 and face.genre == "mono" and rng.random() < TYPEWRITER_ONES:
        glyphs = (("1", "l"),)
    return TextStyle(face=face, size=size, tracking=tracking, leading=leading, align=layout.align,
                     word_space=1.0 if rng.random() < 0.7 else rng.uniform(0.85, 1.5), glyphs=glyphs)


def _family_of(face: Face) -> list[Face]:
    return catalogue()[face.family]


def render_text(rng: random.Random, layout: TextLayout, size: int | None = None, width: float | None = None,
                face: Face | None = None) -> tuple[Ink, str]:
    """Ink and target of a text layout; `width` is the column width for prose (drawn when not given), `face`
    the page's body face (used when it has the glyphs)."""
    size = size or rng.randint(*layout.sizes)
    if QUOTES == "by-face":
        face = _typeset_by_face(rng, layout, face)
    if layout.prose is not None:
        marker = layout.list_marker
        text = _printed_text(layout)
        style = _style(rng, layout, text, size, face)
        setter = Setter(style)
        if width is None:
            per_char = setter.segment_width(text) / max(1, len(text))
            width = per_char * rng.uniform(30, 95)
        indent = setter.width(marker) + setter.space if marker else 0.0
        lines = wrap(layout.prose, setter, width - indent)[:layout.max_lines]
        if marker:
            lines[0] = marker + " " + lines[0]
        ink = typeset([[ln] for ln in lines], style, width, indents=[0.0] + [indent] * (len(lines) - 1))
        return ink, "\n".join(lines)
    lines = layout.lines or [[""]]
    text = _printed_text(layout)
    style = _style(rng, layout, text, size, face)
    if len(lines) == 1 and len(lines[0]) == 1 and rng.random() < layout.neighbour_share:
        return _with_neighbours(rng, lines[0][0], style)
    if layout.bold_label_words and len(lines[0][0].split()) > layout.bold_label_words:
        return _labelled(rng, lines[0][0], layout.bold_label_words, style), " ".join(lines[0][0].split())
    if len(lines) > 1 and any(len(line) > 1 for line in lines):
        width = max(Setter(style).segment_width(" ".join(line)) for line in lines) * rng.uniform(1.05, 1.5)
    ink = typeset(lines, style, width)
    if layout.underline:
        _underline(ink, rng)
    return ink, "\n".join(" ".join(" ".join(seg.split()) for seg in line) for line in lines)


def _underline(ink: Ink, rng: random.Random) -> None:
    """A rule under the first line's words, through the descenders as typewriters and word processors do."""
    first = [b for _, b in ink.words if b[1] < ink.words[0][1][3]]
    bottoms = sorted(b[3] for b in first)
    y = bottoms[len(bottoms) // 2] + max(1, ink.em // 12)
    thickness = max(1, ink.em // rng.choice((14, 20)))
    ink.coverage[y:y + thickness, min(b[0] for b in first):max(b[2] for b in first)] = 255


def _with_neighbours(rng: random.Random, line: str, style: TextStyle) -> tuple[Ink, str]:
    """The line set inside a block: the lines above and below are printed too, and the crop (`focus`) keeps
    only what a detector's line box would, so their ascenders and descenders peek in at the edges."""
    above = " ".join(corpus.words_span(rng, rng.randint(3, 12))) if rng.random() < 0.8 else ""
    below = " ".join(corpus.words_span(rng, rng.randint(3, 12))) if rng.random() < 0.8 or not above else ""
    block = [[t] for t in (above, line, below) if t]
    ink = typeset(block, style)
    first = len(above.split())
    first_char = sum(len(w) for w in above.split())
    count, count_chars = len(line.split()), sum(len(w) for w in line.split())
    ink.words = ink.words[first:first + count]
    ink.chars = ink.chars[first_char:first_char + count_chars]
    ink.focus = (min(b[0] for _, b in ink.words), min(b[1] for _, b in ink.words),
                 max(b[2] for _, b in ink.words), max(b[3] for _, b in ink.words))
    return ink, " ".join(line.split())


def _labelled(rng: random.Random, text: str, label_words: int, style: TextStyle) -> Ink:
    """A form field: the label in the bold face of the value's family, both on one baseline."""
    words = text.split()
    label, value = " ".join(words[:label_words]), " ".join(words[label_words:])
    bold = replace(style, face=pick_face(rng, _family_of(style.face), label, bold=True), tracking=0.0)
    plain = replace(style, tracking=0.0)
    pad = style.size
    label_ink, value_ink = typeset([[label]], bold, pad=pad), typeset([[value]], plain, pad=pad)
    bold_setter, plain_setter = Setter(bold), Setter(plain)
    ascent = max(bold_setter.ascent, plain_setter.ascent)
    label_dy, value_dy = ascent - bold_setter.ascent, ascent - plain_setter.ascent
    value_dx = round(bold_setter.width(label) + plain_setter.space)
    lh, lw = label_ink.coverage.shape
    vh, vw = value_ink.coverage.shape
    coverage = np.zeros((max(label_dy + lh, value_dy + vh), max(lw, value_dx + vw)), dtype=np.uint8)
    paste(coverage, label_ink.coverage, 0, label_dy)
    paste(coverage, value_ink.coverage, value_dx, value_dy)

    def moved(items: list, dx: int, dy: int) -> list:
        return [(t, (b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy)) for t, b in items]

    return Ink(coverage, moved(label_ink.words, 0, label_dy) + moved(value_ink.words, value_dx, value_dy),
               moved(label_ink.chars, 0, label_dy) + moved(value_ink.chars, value_dx, value_dy), em=style.size)
