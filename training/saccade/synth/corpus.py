"""Running prose from documents installed on the system: software licences, package copyright notices and
fortune files. They read like contracts, notices and literature, which is what scanned pages mostly hold.
Which files are read is pinned (`inputs.py`), the word list's too.

Text crops are English, or German with chance GERMAN_SHARE (German fortunes and word list): a decoder that
never saw German words writes "Münner" for "Männer", its umlauts guessed from the pixels alone. The share is
0 unless a run sets it, so every seed generated before it existed still gives the same region.

Characters outside the target vocabulary are transliterated where a plain form exists, otherwise the word
is dropped, so every passage can be used as a target as is.
"""

import bisect
import functools
import itertools
import random
import re
import unicodedata

from ..vocab import CHARSET
from . import inputs

COPYRIGHT_BYTES = 3000  # per package: notices repeat, licences and literature should dominate
MIN_PASSAGE_WORDS = 6

# Frequent characters outside the vocabulary with a faithful replacement inside it.
TRANSLITERATION = str.maketrans({"\t": " ", "\u00a0": " ", "\u2010": "-", "\u2011": "-", "\u2212": "-",
                                 "\u2032": "'", "\u2033": '"', "\u00ab": '"', "\u00bb": '"', "\u201e": '"',
                                 "\u2022": "•", "\u25cf": "•", "\u00ad": ""})
DECORATION = re.compile(r"^[\s\-=*#_~.+|]{3,}$|^\s*\.\s*$")
# Machine-readable copyright headers (file globs, URLs of formats) read like no printed document.
MACHINE_FIELD = re.compile(r"^\s*(Files|Format|Source|Upstream-[A-Za-z]+|Format-Specification|X-[A-Za-z-]+):")


def _clean_word(word: str) -> str | None:
    word = word.translate(TRANSLITERATION)
    if all(c in CHARSET for c in word):
        return word
    ascii_form = unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode()
    # Only accept the plain form when it lost accents, not whole letters of another script.
    if ascii_form and len(ascii_form) >= len(word) * 0.8 and all(c in CHARSET for c in ascii_form):
        return ascii_form
    return None


def _looks_like_path(word: str) -> bool:
    return "/" in word or "*" in word or word.endswith((".c", ".h", ".cpp", ".py", ".js", ".in", ".am"))


def _passages_of(text: str) -> list[list[str]]:
    passages = []
    for block in re.split(r"\n\s*\n", text):
        lines = [ln for ln in block.splitlines() if not DECORATION.match(ln) and not MACHINE_FIELD.match(ln)]
        words = [w for w in (_clean_word(w) for w in " ".join(lines).split()) if w]
        if len(words) >= MIN_PASSAGE_WORDS and sum(map(_looks_like_path, words)) < 0.2 * len(words):
            passages.append(words)
    return passages


def _read(path: str, limit: int | None = None) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read(limit) if limit else f.read()
    except OSError:
        return ""


def _passages_of_file(path: str) -> list[list[str]]:
    if path.startswith(inputs.DOC_DIR + "/"):
        return _passages_of(_read(path, COPYRIGHT_BYTES))
    if path.startswith(inputs.FORTUNE_DIR + "/"):
        return _passages_of(_read(path).replace("\n%\n", "\n\n"))
    return _passages_of(_read(path))


LANGUAGES = {"en": ("prose", "words"), "de": ("prose-de", "words-de")}
"""Per language, the pinned kinds of its prose and its word list."""


@functools.lru_cache(maxsize=None)
def passages(language: str = "en") -> tuple[tuple[str, ...], ...]:
    """All passages of a language as word tuples, in a fixed order."""
    kind = LANGUAGES[language][0]
    found = [p for path in inputs.available(kind) for p in _passages_of_file(path)]
    unique = list(dict.fromkeys(tuple(p) for p in found))
    if not unique:
        raise RuntimeError(f"no {kind} found on this system (the files pinned in {inputs.PINNED_DIR})")
    return tuple(unique)


UNPREDICTABLE_SHARE = 0.4
"""Share of crops whose words are drawn independently from the dictionary. Prose lets a decoder lower its
loss from the words before alone; words it cannot guess make it read (a model trained on prose only was
still writing licence boilerplate for every image after 29k regions)."""


GERMAN_SHARE = 0.0
"""Share of text crops in German (see the module note)."""


def set_unpredictable_share(share: float, _worker_id: int | None = None) -> None:
    """Sets UNPREDICTABLE_SHARE for this process (callable as a data loader's worker_init_fn)."""
    global UNPREDICTABLE_SHARE
    UNPREDICTABLE_SHARE = share


def set_german_share(share: float) -> None:
    """Sets GERMAN_SHARE for this process."""
    global GERMAN_SHARE
    GERMAN_SHARE = share


def crop_words(rng: random.Random, n: int) -> list[str]:
    """The `n` words a text crop shows, in German (GERMAN_SHARE) or English: a prose span (fewer words when
    its passage is shorter), or (UNPREDICTABLE_SHARE) independent dictionary words with the occasional capital
    and trailing punctuation."""
    language = "de" if GERMAN_SHARE > 0 and rng.random() < GERMAN_SHARE else "en"
    if rng.random() >= UNPREDICTABLE_SHARE:
        return words_span(rng, n, language=language)
    words = dictionary_words(language)
    out = []
    for _ in range(n):
        w = rng.choice(words)
        if rng.random() < 0.15:
            w = w[:1].upper() + w[1:]
        if rng.random() < 0.08:
            w += rng.choice(",.;:")
        out.append(w)
    return out


@functools.lru_cache(maxsize=None)
def dictionary_words(language: str = "en") -> tuple[str, ...]:
    text = "".join(_read(path) for path in inputs.available(LANGUAGES[language][1]))
    words = [w for w in text.split() if w and all(c in CHARSET for c in w)]
    return tuple(words) or ("document",)


@functools.lru_cache(maxsize=None)
def _cumulative_lengths(language: str) -> tuple[int, ...]:
    return tuple(itertools.accumulate(len(p) for p in passages(language)))


def words_span(rng: random.Random, n: int, sentence_start: bool | None = None,
               language: str = "en") -> list[str]:
    """`n` consecutive words of one passage (fewer when the passage is shorter).

    Passages are drawn in proportion to their length, so long prose outweighs the many short notices. The
    span begins at a sentence when `sentence_start` says so (None: half the time, as line crops do).
    """
    corpus, cumulative = passages(language), _cumulative_lengths(language)
    passage = corpus[bisect.bisect_right(cumulative, rng.randrange(cumulative[-1]))]
    if len(passage) <= n:
        return list(passage)
    start = rng.randrange(len(passage) - n + 1)
    # Prefer starting at a sentence start half the time: paragraphs in documents do.
    if sentence_start or (sentence_start is None and rng.random() < 0.5):
        for i in range(start, max(-1, start - 40), -1):
            if i == 0 or passage[i - 1].endswith((".", "!", "?", ":")):
                start = min(i, len(passage) - n)
                break
    return list(passage[start:start + n])
