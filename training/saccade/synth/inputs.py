"""The files the generator reads from the system, pinned so that a seed gives the same region everywhere.

Fonts, licence texts, package copyright notices, fortunes and the word lists (English, and German for the
German share of text crops: fortunes-de, wngerman) come from Debian packages under /usr/share. Found by
walking those folders, they made a seed's region depend on whatever else a machine had installed: a golden
text region changed between two machines whose only difference was a few more packages. The generator now
reads exactly the files listed in `pinned/` (fonts, prose, words), in their order; a listed file a machine
lacks is left out and counted by `report()`, which every training launch records, so a run says whether its
data is the pinned one.

`training/synth_inputs.py` shows the report, or pins what this machine has (a deliberate change of the
training data: note it in the run that first uses it).
"""

import functools
import glob
import hashlib
import os

FONT_ROOTS = ("/usr/share/fonts/truetype", "/usr/share/fonts/opentype", "/usr/share/texmf/fonts/opentype/public")
LICENSE_DIR = "/usr/share/common-licenses"
DOC_DIR = "/usr/share/doc"
FORTUNE_DIR = "/usr/share/games/fortunes"
DICTIONARY = "/usr/share/dict/words"
GERMAN_FORTUNE_DIR = os.path.join(FORTUNE_DIR, "de")
GERMAN_DICTIONARY = "/usr/share/dict/ngerman"

PINNED_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pinned")
KINDS = ("fonts", "prose", "words", "prose-de", "words-de")


def _discover_fonts() -> list[str]:
    paths = []
    for root in FONT_ROOTS:
        for folder, _, files in os.walk(root):
            paths += [os.path.join(folder, f) for f in files if f.lower().endswith((".ttf", ".otf"))]
    return sorted(paths)


def _discover_prose() -> list[str]:
    """Licences (each text once, though several names link to it), then copyright notices, then fortunes."""
    licences = []
    for path in sorted(glob.glob(os.path.join(LICENSE_DIR, "*"))):
        real = os.path.realpath(path)
        if real not in licences and os.path.isfile(real):
            licences.append(real)
    fortunes = [p for p in sorted(glob.glob(os.path.join(FORTUNE_DIR, "*"))) if "." not in os.path.basename(p)]
    return licences + sorted(glob.glob(os.path.join(DOC_DIR, "*", "copyright"))) + fortunes


def _discover_german_prose() -> list[str]:
    """German fortunes (Debian's fortunes-de): anecdotes, proverbs, poems and quotations; not its ASCII art."""
    return [p for p in sorted(glob.glob(os.path.join(GERMAN_FORTUNE_DIR, "*")))
            if "." not in os.path.basename(p) and os.path.basename(p) != "asciiart"]


def _existing(path: str) -> list[str]:
    return [path] if os.path.isfile(path) else []


DISCOVER = {"fonts": _discover_fonts, "prose": _discover_prose, "words": lambda: _existing(DICTIONARY),
            "prose-de": _discover_german_prose, "words-de": lambda: _existing(GERMAN_DICTIONARY)}


def _list_path(kind: str) -> str:
    return os.path.join(PINNED_DIR, kind + ".txt")


def pinned(kind: str) -> list[str]:
    with open(_list_path(kind), encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip()]


@functools.cache
def available(kind: str) -> tuple[str, ...]:
    """The pinned files of `kind` this machine has, in pinned order."""
    return tuple(p for p in pinned(kind) if os.path.isfile(p))


def report() -> dict:
    """Per kind: how many files are pinned and found, the first missing ones, and a digest of the found
    files' names and bytes (equal digests, equal generator inputs)."""
    out = {}
    for kind in KINDS:
        listed, found = pinned(kind), available(kind)
        digest = hashlib.sha256()
        for path in found:
            digest.update(path.encode() + b"\0")
            with open(path, "rb") as f:
                digest.update(hashlib.sha256(f.read()).digest())
        have = set(found)
        missing = [p for p in listed if p not in have]
        out[kind] = {"pinned": len(listed), "found": len(found), "missing": missing[:5],
                     "digest": digest.hexdigest()[:16]}
    return out


def pin(kinds: tuple[str, ...] = KINDS) -> None:
    os.makedirs(PINNED_DIR, exist_ok=True)
    for kind in kinds:
        with open(_list_path(kind), "w", encoding="utf-8") as f:
            f.writelines(p + "\n" for p in DISCOVER[kind]())
    available.cache_clear()
