"""Setting lines of text into an ink-coverage canvas, recording a tight box for every word and character.

Coverage (0 = paper, 255 = full ink) keeps the layout independent of paper and ink tones, which the scan
simulation picks later. Boxes come from the font's glyph outlines, so they hug the ink.
"""

import functools
from dataclasses import dataclass, field

import cv2
import numpy as np
from PIL import Image, ImageDraw

from .fonts import Face, load

Box = tuple[int, int, int, int]


@dataclass
class Ink:
    coverage: np.ndarray  # uint8 HxW
    words: list[tuple[str, Box]] = field(default_factory=list)
    chars: list[tuple[str, Box]] = field(default_factory=list)
    em: int = 0  # font size in pixels of text ink; 0 for tables and formulas
    focus: Box | None = None  # the part a crop keeps when other ink (neighbouring lines) surrounds it


@dataclass(frozen=True)
class TextStyle:
    face: Face
    size: int  # em size in pixels
    tracking: float = 0.0  # extra pixels between letters
    leading: float = 1.15  # line pitch as a multiple of the font's ascent + descent
    align: str = "left"  # 'left' | 'center' | 'right' | 'justify'
    word_space: float = 1.0  # multiple of the font's space width
    # Characters printed with another character's glyph, as (printed, drawn) pairs: a typewriter without a
    # "1" key types "l". Targets and recorded boxes keep the printed character.
    glyphs: tuple[tuple[str, str], ...] = ()


REFERENCE_SIZE = 128  # glyph ink boxes are measured once per face at this size and scaled
KERNING_PROBES = ("AV", "To", "Wa", "LT", "Ty", "y.", "r,", "Yo", "P.", "ff")


class FaceShapes:
    """Size-independent facts about a face: glyph ink boxes at the reference size, and whether the basic
    layout kerns at all (only faces with a legacy kern table do), so most faces skip pair lookups."""

    def __init__(self, path: str):
        self.font = load(path, REFERENCE_SIZE)
        self._boxes: dict[str, tuple[int, int, int, int]] = {}
        self.kerns = any(abs(self.font.getlength(p) - self.font.getlength(p[0]) - self.font.getlength(p[1])) > 1e-6
                         for p in KERNING_PROBES)

    def box(self, ch: str) -> tuple[int, int, int, int]:
        """Ink box relative to the pen on the baseline, from the rendered mask: FreeType's layout box runs
        from the pen to the baseline, which for a dash or a quote is mostly paper."""
        value = self._boxes.get(ch)
        if value is None:
            mask, (dx, dy) = self.font.getmask2(ch, anchor="ls")
            ink = mask.getbbox()
            value = (dx + ink[0], dy + ink[1], dx + ink[2], dy + ink[3]) if ink else (0, 0, 0, 0)
            self._boxes[ch] = value
        return value


@functools.lru_cache(maxsize=None)
def face_shapes(path: str) -> FaceShapes:
    return FaceShapes(path)


class Metrics:
    """Advance widths and kerning of one font at one size, measured once and kept: asking FreeType for every
    prefix of every word was most of the generator's time. Glyph boxes are the face's reference boxes,
    scaled."""

    def __init__(self, path: str, size: int):
        self.font = load(path, size)
        self.shapes = face_shapes(path)
        self.scale = size / REFERENCE_SIZE
        self._advance: dict[str, float] = {}
        self._kern: dict[str, float] = {}
        self._bbox: dict[str, tuple[float, float, float, float]] = {}

    def advance(self, ch: str) -> float:
        value = self._advance.get(ch)
        if value is None:
            value = self._advance[ch] = self.font.getlength(ch)
        return value

    def kern(self, pair: str) -> float:
        if not self.shapes.kerns:
            return 0.0
        value = self._kern.get(pair)
        if value is None:
            value = self._kern[pair] = self.font.getlength(pair) - self.advance(pair[0]) - self.advance(pair[1])
        return value

    def bbox(self, ch: str) -> tuple[float, float, float, float]:
        """Ink box of `ch` relative to its pen position on the baseline (empty for blank glyphs)."""
        value = self._bbox.get(ch)
        if value is None:
            l, t, r, b = self.shapes.box(ch)
            # Half a pixel of slack each way absorbs hinting, which shifts small glyphs by up to a pixel.
            value = self._bbox[ch] = (l * self.scale - 0.5, t * self.scale - 0.5, r * self.scale + 0.5,
                                      b * self.scale + 0.5)
        return value

    def offsets(self, word: str, tracking: float) -> list[float]:
        """Pen position of each character of `word` drawn as one run (kerning included)."""
        pos, out = 0.0, []
        for i, ch in enumerate(word):
            if i:
                pos += self.advance(word[i - 1]) + tracking + (0.0 if tracking else self.kern(word[i - 1:i + 1]))
            out.append(pos)
        return out


@functools.lru_cache(maxsize=512)  # bounds memory: each entry holds a FreeType face at one size
def metrics(path: str, size: int) -> Metrics:
    return Metrics(path, size)


class Setter:
    """Measures and draws words of one style."""

    def __init__(self, style: TextStyle):
        self.style = style
        self.metrics = metrics(style.face.path, style.size)
        self.font = self.metrics.font
        self.ascent, self.descent = self.font.getmetrics()
        self.space = self.metrics.advance(" ") * style.word_space + style.tracking
        self.pitch = max(1, round((self.ascent + self.descent) * style.leading))
        self.drawn = str.maketrans(dict(style.glyphs))

    def width(self, word: str) -> float:
        if not word:
            return 0.0
        word = word.translate(self.drawn)
        return self.metrics.offsets(word, self.style.tracking)[-1] + self.metrics.advance(word[-1])

    def segment_width(self, segment: str) -> float:
        words = segment.split()
        return sum(self.width(w) for w in words) + self.space * max(0, len(words) - 1)

    def draw_run(self, draw: ImageDraw.ImageDraw, x: float, baseline: float, run: str,
                 words: list, chars: list) -> None:
        """Draw `run` (one word, or words joined by single spaces when the style keeps the font's own word
        spacing) in one call, and record the box of each word and character (the printed characters, drawn
        with `style.glyphs`)."""
        drawn = run.translate(self.drawn)
        offsets = self.metrics.offsets(drawn, self.style.tracking)
        if self.style.tracking:
            for ch, off in zip(drawn, offsets):
                if ch != " ":
                    draw.text((x + off, baseline), ch, font=self.font, fill=255, anchor="ls")
        else:
            draw.text((x, baseline), drawn, font=self.font, fill=255, anchor="ls")
        word: list[str] = []
        boxes: list[tuple[int, int, int, int]] = []
        for ch, glyph, off in zip(run + " ", drawn + " ", offsets + [0.0]):
            if ch == " ":
                if boxes:
                    words.append(("".join(word), (min(b[0] for b in boxes), min(b[1] for b in boxes),
                                                  max(b[2] for b in boxes), max(b[3] for b in boxes))))
                word, boxes = [], []
                continue
            word.append(ch)
            l, t, r, b = self.metrics.bbox(glyph)
            if r > l and b > t:
                box = (int(np.floor(x + off + l)), int(np.floor(baseline + t)), int(np.ceil(x + off + r)),
                       int(np.ceil(baseline + b)))
                boxes.append(box)
                chars.append((ch, box))


def typeset(lines: list[list[str]], style: TextStyle, width: float | None = None, pad: int | None = None,
            indents: list[float] | None = None) -> Ink:
    """Draw `lines` (each a list of segments) one under another.

    A line with one segment follows `style.align`; a line with several segments spreads them over columns:
    the first flush left, the others flush right at column stops shared by all lines, as in invoices.
    Justified lines stretch their word gaps to `width`, except the last line. `indents` shifts single-segment
    lines right (hanging list items).
    """
    setter = Setter(style)
    naturals = [[setter.segment_width(s) for s in line] for line in lines]
    multi = [w[1:] for w in naturals if len(w) > 1]
    column = max((max(w) for w in multi), default=0) + 2.5 * setter.space
    needed = max((w[0] + column * (len(w) - 1) + (indents[i] if indents else 0) for i, w in enumerate(naturals)),
                 default=1)
    width = max(width or 0, needed)
    pad = setter.style.size if pad is None else pad
    height = setter.ascent + setter.descent + setter.pitch * max(0, len(lines) - 1)
    canvas = Image.new("L", (int(np.ceil(width)) + 2 * pad, int(height) + 2 * pad), 0)
    draw = ImageDraw.Draw(canvas)
    words: list = []
    chars: list = []
    for n, (line, line_widths) in enumerate(zip(lines, naturals)):
        baseline = pad + setter.ascent + n * setter.pitch
        if len(line) > 1:
            starts = [pad] + [pad + width - column * (len(line) - 1 - j) - line_widths[j] for j in range(1, len(line))]
            for segment, x in zip(line, starts):
                _draw_segment(setter, draw, segment, x, baseline, setter.space, words, chars)
            continue
        indent = indents[n] if indents else 0.0
        room = width - indent - (line_widths[0] if line_widths else 0)
        gap = setter.space
        x = pad + indent
        tokens = line[0].split() if line else []
        if style.align == "justify" and n < len(lines) - 1 and len(tokens) > 1:
            gap += room / (len(tokens) - 1)
        elif style.align == "center":
            x += room / 2
        elif style.align == "right":
            x += room
        _draw_segment(setter, draw, line[0] if line else "", x, baseline, gap, words, chars)
    return Ink(np.array(canvas), words, chars, em=style.size)


def _draw_segment(setter: Setter, draw: ImageDraw.ImageDraw, segment: str, x: float, baseline: float,
                  gap: float, words: list, chars: list) -> None:
    tokens = segment.split()
    if gap == setter.space and setter.style.word_space == 1.0:
        setter.draw_run(draw, x, baseline, " ".join(tokens), words, chars)
        return
    for word in tokens:
        setter.draw_run(draw, x, baseline, word, words, chars)
        x += setter.width(word) + gap


def wrap(words: list[str], setter: Setter, width: float) -> list[str]:
    """Greedy line breaking by measured width."""
    lines: list[str] = []
    current: list[str] = []
    used = 0.0
    for word in words:
        w = setter.width(word)
        if current and used + setter.space + w > width:
            lines.append(" ".join(current))
            current, used = [], 0.0
        used += (setter.space if current else 0) + w
        current.append(word)
    if current:
        lines.append(" ".join(current))
    return lines


def paste(dst: np.ndarray, src: np.ndarray, x: int, y: int) -> None:
    """Overprint `src` coverage onto `dst` at (x, y); ink adds up like overlapping print, clipped."""
    h, w = src.shape
    region = dst[y:y + h, x:x + w]
    np.maximum(region, src[:region.shape[0], :region.shape[1]], out=region)


def scaled(ink: Ink, factor: float) -> Ink:
    """Ink resized by `factor` (area averaging), boxes rounded outward."""
    h, w = ink.coverage.shape
    coverage = cv2.resize(ink.coverage, (max(1, round(w * factor)), max(1, round(h * factor))),
                          interpolation=cv2.INTER_AREA)

    def boxes(items: list) -> list:
        return [(t, (int(np.floor(b[0] * factor)), int(np.floor(b[1] * factor)), int(np.ceil(b[2] * factor)),
                     int(np.ceil(b[3] * factor)))) for t, b in items]

    return Ink(coverage, boxes(ink.words), boxes(ink.chars), em=round(ink.em * factor))
