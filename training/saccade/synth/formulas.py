"""Display formulas written as LaTeX in the normalised im2latex style (every token separated by one space,
braces as their own tokens, numbers and multi-letter names split into characters: `\\frac { a } { 2 }`,
`x ^ { 1 2 }`), rendered with matplotlib's mathtext.

Half are well-known formulas of science, statistics and engineering with their symbols and numbers varied,
half come from a small grammar, so the model sees both real notation and unfamiliar combinations. Mathtext
needs scripts written without spaces (`x^{2}`, not `x ^ { 2 }`), so the source it renders is the target with
the spaces dropped wherever TeX would ignore them.
"""

import functools
import itertools
import logging
import random
import re

import numpy as np
from matplotlib import font_manager
from matplotlib.font_manager import FontProperties
from matplotlib.mathtext import MathTextParser

from .typeset import Ink

LETTERS = list("abcdefghijklmnopqrstuvwxyz") + list("ABCDEFGHKLMNPRSTVWXYZ")
GREEK = ["\\alpha", "\\beta", "\\gamma", "\\delta", "\\epsilon", "\\varepsilon", "\\zeta", "\\eta", "\\theta",
         "\\vartheta", "\\iota", "\\kappa", "\\lambda", "\\mu", "\\nu", "\\xi", "\\pi", "\\rho", "\\sigma", "\\tau",
         "\\upsilon", "\\phi", "\\varphi", "\\chi", "\\psi", "\\omega", "\\Gamma", "\\Delta", "\\Theta", "\\Lambda",
         "\\Xi", "\\Pi", "\\Sigma", "\\Phi", "\\Psi", "\\Omega"]
FUNCTIONS = ["\\sin", "\\cos", "\\tan", "\\log", "\\ln", "\\exp", "\\det", "\\max", "\\min"]
BINARY = ["+", "-"] * 6 + ["\\cdot", "\\times", "\\pm", "/"] * 2 + [
    "\\mp", "\\div", "\\cup", "\\cap", "\\otimes", "\\oplus", "\\circ", "\\ast", "\\wedge", "\\vee"]
RELATIONS = ["="] * 10 + ["<", ">", "\\leq", "\\geq", "\\neq", "\\approx", "\\equiv", "\\sim", "\\simeq",
             "\\propto", "\\in", "\\subset", "\\subseteq", "\\to", "\\rightarrow", "\\Rightarrow",
             "\\Leftrightarrow", "\\mapsto", "\\perp", "\\parallel", "\\mid", "\\notin", "\\leftarrow"]
ACCENTS = ["\\hat", "\\bar", "\\tilde", "\\vec", "\\dot", "\\ddot", "\\overline"]
FONT_COMMANDS = ["\\mathrm", "\\mathbf", "\\mathcal", "\\mathbb"]
SYMBOLS = ["\\infty", "\\partial", "\\nabla", "\\ell", "\\hbar", "\\emptyset", "\\cdots", "\\ldots", "\\prime",
           "\\dots", "\\star", "\\angle"]
# Known formulas in normalised spelling. Placeholders: @v a variable letter, @g a Greek letter, @n a number,
# @i an index letter; each is drawn once per formula, so a placeholder repeated stays the same symbol.
TEMPLATES = [
    r"x = \frac { - b \pm \sqrt { b ^ { 2 } - 4 a c } } { 2 a }",
    r"E = m c ^ { 2 }",
    r"f ( x ) = \frac { 1 } { \sigma \sqrt { 2 \pi } } e ^ { - \frac { ( x - \mu ) ^ { 2 } } { 2 \sigma ^ { 2 } } }",
    r"\sum _ { @i = 1 } ^ { n } @i = \frac { n ( n + 1 ) } { 2 }",
    r"\int _ { 0 } ^ { \infty } e ^ { - @v ^ { 2 } } d @v = \frac { \sqrt { \pi } } { 2 }",
    r"P ( A \mid B ) = \frac { P ( B \mid A ) P ( A ) } { P ( B ) }",
    r"\nabla \cdot \vec { E } = \frac { \rho } { \epsilon _ { 0 } }",
    r"\lim _ { @v \to 0 } \frac { \sin @v } { @v } = 1",
    r"\hat { \beta } = ( X ^ { T } X ) ^ { - 1 } X ^ { T } y",
    r"\bar { @v } = \frac { 1 } { n } \sum _ { @i = 1 } ^ { n } @v _ { @i }",
    r"s ^ { 2 } = \frac { 1 } { n - 1 } \sum _ { @i = 1 } ^ { n } ( @v _ { @i } - \bar { @v } ) ^ { 2 }",
    r"e ^ { i \pi } + 1 = 0",
    r"\frac { \partial u } { \partial t } = @g \frac { \partial ^ { 2 } u } { \partial x ^ { 2 } }",
    r"F = G \frac { m _ { 1 } m _ { 2 } } { r ^ { 2 } }",
    r"a ^ { 2 } + b ^ { 2 } = c ^ { 2 }",
    r"\| @v \| _ { 2 } = \sqrt { \sum _ { @i } @v _ { @i } ^ { 2 } }",
    r"\int _ { a } ^ { b } f ( x ) d x = F ( b ) - F ( a )",
    r"L ( \theta ) = - \sum _ { @i = 1 } ^ { N } y _ { @i } \log \hat { y } _ { @i }",
    r"\sigma ( z ) = \frac { 1 } { 1 + e ^ { - z } }",
    r"\mathbf { A } \mathbf { x } = \mathbf { b }",
    r"\forall \epsilon > 0 \exists \delta > 0 : | x - a | < \delta \Rightarrow | f ( x ) - f ( a ) | < \epsilon",
    r"V = \frac { 4 } { 3 } \pi r ^ { 3 }",
    r"\cos ^ { 2 } @g + \sin ^ { 2 } @g = 1",
    r"\oint _ { C } \vec { B } \cdot d \vec { l } = \mu _ { 0 } I",
    r"i \hbar \frac { \partial } { \partial t } \psi = \hat { H } \psi",
    r"P V = n R T",
    r"\Delta G = \Delta H - T \Delta S",
    r"y = @n x + @n",
    r"x _ { n + 1 } = x _ { n } - \frac { f ( x _ { n } ) } { f ^ { \prime } ( x _ { n } ) }",
    r"\prod _ { @i = 1 } ^ { n } ( 1 + r _ { @i } ) - 1",
    r"\mathbb { E } [ X ] = \sum _ { x } x p ( x )",
    r"A = \pi r ^ { 2 }",
    r"\tan @g = \frac { \sin @g } { \cos @g }",
    r"\log _ { b } ( x y ) = \log _ { b } x + \log _ { b } y",
    r"\frac { d } { d x } e ^ { @v x } = @v e ^ { @v x }",
    r"R _ { \mu \nu } - \frac { 1 } { 2 } R g _ { \mu \nu } = 8 \pi G T _ { \mu \nu }",
    r"\{ x \in \mathbb { R } \mid x ^ { 2 } < @n \}",
    r"f ( x ) \approx f ( a ) + f ^ { \prime } ( a ) ( x - a )",
    r"\langle \psi | \phi \rangle = \int \psi ^ { \ast } \phi d x",
    r"\det ( A - \lambda I ) = 0",
    r"\max _ { x } \min _ { y } f ( x , y )",
    r"A \cap B = \emptyset",
    r"\sqrt [ 3 ] { @n } \approx @n",
    r"@v ( t ) = @v _ { 0 } e ^ { - \lambda t }",
    r"C = P ( 1 + \frac { r } { n } ) ^ { n t }",
    r"\mathrm { N P V } = \sum _ { t = 0 } ^ { T } \frac { C _ { t } } { ( 1 + r ) ^ { t } }",
    r"Z = \frac { X - \mu } { \sigma }",
    r"\rho _ { X , Y } = \frac { \mathrm { c o v } ( X , Y ) } { \sigma _ { X } \sigma _ { Y } }",
    r"\vec { F } = m \vec { a }",
    r"v = v _ { 0 } + a t",
    r"s = v _ { 0 } t + \frac { 1 } { 2 } a t ^ { 2 }",
    r"\omega = 2 \pi f",
    r"U = R I",
    r"P = \frac { U ^ { 2 } } { R }",
    r"\lambda = \frac { h } { p }",
    r"\Phi ( x ) = \frac { 1 } { 2 } \left[ 1 + \mathrm { e r f } ( \frac { x } { \sqrt { 2 } } ) \right]",
    r"H ( X ) = - \sum _ { @i } p _ { @i } \log _ { 2 } p _ { @i }",
    r"\hat { f } ( \xi ) = \int _ { - \infty } ^ { \infty } f ( x ) e ^ { - 2 \pi i x \xi } d x",
    r"\frac { d y } { d x } + p ( x ) y = q ( x )",
    r"@v _ { @i } \geq 0 , \quad @i = 1 , \ldots , n",
    r"\sum _ { k = 0 } ^ { \infty } \frac { x ^ { k } } { k ! } = e ^ { x }",
    r"\nabla \times \vec { B } = \mu _ { 0 } \vec { J } + \mu _ { 0 } \epsilon _ { 0 } \frac { \partial \vec { E } } { \partial t }",
    r"| a + b | \leq | a | + | b |",
    r"\mathrm { R O I } = \frac { @n - @n } { @n } \times 1 0 0 \%",
    r"\int _ { 0 } ^ { 1 } @v ^ { 2 } \, d @v = \frac { 1 } { 3 }",
    r"\hat { \theta } = \operatorname { a r g m a x } _ { \theta } \log p ( x \mid \theta )",
    r"f ( x ) = x ^ { 2 } , \qquad x \geq 0",
    r"@v \notin \emptyset \; \Rightarrow \; @v \in A \cup B",
    r"\angle A B C = \frac { \pi } { 2 }",
    r"a _ { 1 } , a _ { 2 } , \dots , a _ { n }",
    r"\sin @g \simeq @g - \frac { @g ^ { 3 } } { 6 }",
    r"x \leftarrow x - \eta \nabla f ( x )",
    r"f \star g ( t ) = \int f ( \tau ) g ( t - \tau ) \! d \tau",
]


FONTSETS = ("cm", "cm", "stix", "stixsans", "dejavuserif", "dejavusans")


class Grammar:
    """Random formula tokens; `depth` bounds nesting so formulas stay one display line."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def number(self) -> list[str]:
        digits = str(self.rng.choice((self.rng.randint(0, 9), self.rng.randint(0, 99), self.rng.randint(0, 9999))))
        if self.rng.random() < 0.15:
            digits += "." + str(self.rng.randint(0, 99))
        return list(digits)

    def symbol(self) -> list[str]:
        r = self.rng.random()
        if r < 0.55:
            return [self.rng.choice(LETTERS)]
        if r < 0.8:
            return [self.rng.choice(GREEK)]
        if r < 0.9:
            return self.number()
        if r < 0.95:
            return [self.rng.choice(FONT_COMMANDS), "{", self.rng.choice(LETTERS[26:]), "}"]
        return [self.rng.choice(ACCENTS), "{", self.rng.choice(LETTERS), "}"]

    def script(self) -> list[str]:
        r = self.rng.random()
        if r < 0.5:
            return [self.rng.choice(LETTERS[:26])]
        if r < 0.8:
            return self.number()
        return [self.rng.choice(LETTERS[:26]), self.rng.choice(("+", "-")), "1"]

    def atom(self, depth: int) -> list[str]:
        r = self.rng.random()
        base = self.symbol()
        if depth <= 0 or r < 0.35:
            return base
        if r < 0.5:
            return base + ["^", "{"] + self.script() + ["}"]
        if r < 0.6:
            return base + ["_", "{"] + self.script() + ["}"]
        if r < 0.65:
            return base + ["_", "{"] + self.script() + ["}", "^", "{"] + self.script() + ["}"]
        if r < 0.73:
            return ["\\frac", "{"] + self.expression(depth - 1) + ["}", "{"] + self.expression(depth - 1) + ["}"]
        if r < 0.78:
            root = ["\\sqrt"] + (["[", self.rng.choice(("3", "n")), "]"] if self.rng.random() < 0.2 else [])
            return root + ["{"] + self.expression(depth - 1) + ["}"]
        if r < 0.84:
            opener, closer = self.rng.choice((("(", ")"), ("[", "]"), ("\\{", "\\}"), ("|", "|"), ("\\|", "\\|"),
                                               ("\\langle", "\\rangle")))
            inner = self.expression(depth - 1)
            if self.rng.random() < 0.5:
                return ["\\left", opener] + inner + ["\\right", closer]
            return [opener] + inner + [closer]
        if r < 0.9:
            return [self.rng.choice(FUNCTIONS), "("] + self.expression(depth - 1) + [")"]
        if r < 0.95:
            op = self.rng.choice(("\\sum", "\\prod", "\\int", "\\oint"))
            i = self.rng.choice(("i", "k", "n", "j"))
            if op in ("\\int", "\\oint"):
                return [op, "_", "{"] + self.script() + ["}", "^", "{", self.rng.choice(("1", "\\infty", "b", "T")),
                                                          "}"] + self.expression(depth - 1) + ["d", self.rng.choice(("x", "t", "s"))]
            return [op, "_", "{", i, "=", self.rng.choice(("0", "1")), "}", "^", "{",
                    self.rng.choice(("n", "N", "\\infty", "k")), "}"] + self.atom(depth - 1)
        if r < 0.98:
            v = self.rng.choice(("x", "n", "h", "t"))
            return ["\\lim", "_", "{", v, "\\to", self.rng.choice(("0", "\\infty", "a")), "}"] + self.atom(depth - 1)
        return [self.rng.choice(SYMBOLS)]

    def expression(self, depth: int) -> list[str]:
        tokens = self.atom(depth)
        for _ in range(self.rng.choice((0, 1, 1, 2, 2, 3))):
            if self.rng.random() < 0.75:
                tokens += [self.rng.choice(BINARY)]
            tokens += self.atom(depth)
        return tokens

    def formula(self) -> list[str]:
        depth = self.rng.choice((1, 2, 2, 3))
        tokens = self.expression(depth)
        if self.rng.random() < 0.75:
            tokens += [self.rng.choice(RELATIONS)] + self.expression(depth)
        if self.rng.random() < 0.08:
            tokens += [",", "\\quad", self.rng.choice(LETTERS[:26]), self.rng.choice(("\\in", ">", "\\geq")),
                       self.rng.choice(("0", "\\mathbb { R }", "\\mathbb { N }"))]
        return tokens


def from_template(rng: random.Random) -> list[str]:
    grammar = Grammar(rng)
    fills = {"@v": [rng.choice(("x", "y", "z", "t", "u", "a", "k"))], "@g": [rng.choice(("\\theta", "\\alpha", "\\phi", "x"))],
             "@i": [rng.choice(("i", "j", "k"))]}
    tokens: list[str] = []
    for token in rng.choice(TEMPLATES).split():
        if token == "@n":
            tokens += grammar.number()  # numbers differ at each occurrence
        else:
            tokens += fills.get(token, [token])
    return tokens


def formula_tokens(rng: random.Random) -> list[str]:
    if rng.random() < 0.5:
        return from_template(rng)
    tokens = Grammar(rng).formula()
    while len(tokens) > 70:  # keep to one display line of moderate width
        tokens = Grammar(rng).formula()
    return tokens


def mathtext_source(tokens: list[str]) -> str:
    """The target with spaces dropped except between a command and a following letter (`\\alpha x`)."""
    return re.sub(r"(?<![A-Za-z]) | (?![A-Za-z])", "", " ".join(tokens))


@functools.lru_cache(maxsize=1)
def _parser() -> MathTextParser:
    # Mathtext logs every under-full box of an accent; in a data worker that floods the training log.
    logging.getLogger("matplotlib.mathtext").setLevel(logging.ERROR)
    return MathTextParser("agg")


RENDERS_BETWEEN_FONT_RELOADS = 500
_renders = itertools.count(1)


def render_formula(tokens: list[str], fontset: str, points: float, dpi: int) -> np.ndarray:
    """Coverage (uint8, ink = 255) of the formula."""
    if next(_renders) % RENDERS_BETWEEN_FONT_RELOADS == 0:
        # Mathtext loads glyphs into matplotlib's cached font objects and never clears them: about 11 MB
        # per thousand formulas. Dropping the cache frees them; reloaded fonts draw identically.
        font_manager._get_font.cache_clear()
    parsed = _parser().parse("$" + mathtext_source(tokens) + "$", dpi=dpi,
                             prop=FontProperties(size=points, math_fontfamily=fontset))
    return np.asarray(parsed.image, dtype=np.uint8)


def make_formula(rng: random.Random, em: float | None = None) -> tuple[Ink, str]:
    """Ink and target of one display formula; `em` is the font size in pixels (drawn when not given)."""
    tokens = formula_tokens(rng)
    # Few distinct sizes: matplotlib caches fonts per size, and unbounded variety grew memory steadily.
    dpi = rng.choice((150, 175, 200, 225, 250))
    points = round(2 * (em * 72 / dpi if em else rng.uniform(10, 16))) / 2
    coverage = render_formula(tokens, rng.choice(FONTSETS), points, dpi)
    pad = 24
    canvas = np.zeros((coverage.shape[0] + 2 * pad, coverage.shape[1] + 2 * pad), dtype=np.uint8)
    canvas[pad:pad + coverage.shape[0], pad:pad + coverage.shape[1]] = coverage
    return Ink(canvas), " ".join(tokens)
