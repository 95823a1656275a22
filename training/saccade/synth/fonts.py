"""The font faces the generator prints with, found on the system and checked for the glyphs a text needs.

Faces are grouped into families so that a family with many optical sizes (Latin Modern) does not crowd out
one with a single file, and so that a table can take its header from the bold face of its body's family.
"""

import functools
import os
import random
from dataclasses import dataclass

from fontTools.ttLib import TTFont
from PIL import ImageFont

from . import inputs

# Symbol, dingbat, math and calligraphic faces: they do not print document text.
EXCLUDED_NAME_PARTS = (
    "math", "lyx", "d050000l", "standardsymbols", "z003", "chorus", "dunh", "extralight", "lmmonocaps",
    "lmromancaps", "lmroman5", "lmroman6", "lmroman7",
)

MONO_NAME_PARTS = ("mono", "cursor", "courier")
SANS_NAME_PARTS = ("sans", "heros", "adventor", "gothic", "carlito", "helvet")
PRINTABLE_ASCII = frozenset(chr(c) for c in range(33, 127))


@dataclass(frozen=True)
class Face:
    path: str
    family: str
    genre: str  # 'serif' | 'sans' | 'mono'
    bold: bool
    italic: bool
    characters: frozenset  # every character the face has a glyph for, plus space and newline

    def covers(self, text: str) -> bool:
        return self.characters.issuperset(text)


def _genre(name: str) -> str:
    if any(p in name for p in MONO_NAME_PARTS):
        return "mono"
    if any(p in name for p in SANS_NAME_PARTS):
        return "sans"
    return "serif"


def _read_face(path: str) -> Face | None:
    name = os.path.basename(path).lower()
    if any(p in path.lower() for p in EXCLUDED_NAME_PARTS):
        return None
    try:
        tt = TTFont(path, lazy=True)
        cmap = tt.getBestCmap() or {}
        family = tt["name"].getDebugName(1) or name
    except Exception:  # a damaged or unsupported file is skipped, not fatal
        return None
    codepoints = frozenset(cmap)
    if not all(ord(c) in codepoints for c in PRINTABLE_ASCII):
        return None
    family = family.replace(" Bold", "").replace(" Italic", "").strip()
    return Face(
        path=path,
        family=family,
        genre=_genre(name + " " + family.lower()),
        bold=any(p in name for p in ("bold", "demi", "-bd")),
        italic=any(p in name for p in ("italic", "oblique", "slant", "-it", "bdita")),
        characters=frozenset(chr(c) for c in codepoints) | {" ", "\n"},
    )


@functools.lru_cache(maxsize=1)
def catalogue() -> dict[str, list[Face]]:
    """Family name -> faces of the pinned font files, both sorted so that choices are reproducible."""
    families: dict[str, list[Face]] = {}
    for path in sorted(inputs.available("fonts")):
        face = _read_face(path)
        if face is not None:
            families.setdefault(face.family, []).append(face)
    if not families:
        raise RuntimeError("none of the pinned fonts (" + inputs.PINNED_DIR + ") is on this machine")
    return dict(sorted(families.items()))


GENRE_WEIGHTS = {"serif": 0.45, "sans": 0.4, "mono": 0.15}


def set_mono_share(share: float) -> None:
    """Sets the monospaced (typewriter, till) share of GENRE_WEIGHTS for this process; serif and sans keep
    their ratio in the rest."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"mono share {share} is not in [0, 1]")
    serif, sans = GENRE_WEIGHTS["serif"], GENRE_WEIGHTS["sans"]
    rest = 1.0 - share
    GENRE_WEIGHTS.update(serif=rest * serif / (serif + sans), sans=rest * sans / (serif + sans), mono=share)


def pick_family(rng: random.Random, text: str = "", genre: str | None = None) -> list[Face]:
    """A family (its faces) whose regular face covers `text`; the genre is drawn when not given."""
    families = catalogue()
    genre = genre or rng.choices(list(GENRE_WEIGHTS), weights=list(GENRE_WEIGHTS.values()))[0]
    names = [n for n, faces in families.items() if faces[0].genre == genre and any(f.covers(text) for f in faces)]
    if not names:
        names = [n for n, faces in families.items() if any(f.covers(text) for f in faces)]
    return families[rng.choice(names)]


def pick_face(rng: random.Random, family: list[Face], text: str = "", bold: bool = False, italic: bool = False) -> Face:
    """The face of `family` closest to the wanted style that covers `text`."""
    covering = [f for f in family if f.covers(text)] or family
    exact = [f for f in covering if f.bold == bold and f.italic == italic]
    if exact:
        return rng.choice(exact)
    upright = [f for f in covering if f.bold == bold] or [f for f in covering if not f.bold and not f.italic] or covering
    return rng.choice(upright)


def covering_face(rng: random.Random, text: str, genre: str | None = None, bold: bool = False, italic: bool = False) -> Face:
    return pick_face(rng, pick_family(rng, text, genre), text, bold, italic)


def load(path: str, size_px: int) -> ImageFont.FreeTypeFont:
    """A face at one pixel size; callers keep what they reuse (`typeset.metrics` caches per size)."""
    # Basic layout: several times faster than shaping, and per-character boxes stay exact (no ligatures).
    return ImageFont.truetype(path, size_px, layout_engine=ImageFont.Layout.BASIC)
