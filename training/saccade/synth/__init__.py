"""Synthetic document engine: region crops and whole pages with exact targets, for training the recogniser.

    from saccade.synth import generate_region, generate_page
    r = generate_region(seed, kind=None)   # kind: 'text' | 'table' | 'formula' | None (70/18/12 mixture)
    p = generate_page(seed)

Targets use only `saccade.vocab` characters plus its whole HTML and LaTeX tokens:
- text: the visible text, lines joined by '\\n', words by one space (no Markdown markup: headings, bold and
  list structure are left to the page assembler; list markers are transcribed as printed);
- table: `<table><tr><td>..</td>..</tr>..</table>` (see `tables` for the exact convention);
- formula: LaTeX in the normalised im2latex spelling (see `formulas`).
"""

from .pages import generate_page
from .regions import generate_region
from .samples import Page, Region

__all__ = ["generate_region", "generate_page", "Region", "Page"]
