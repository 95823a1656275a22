"""The records the generator hands to training: one cropped region, or a whole page with its layout."""

from dataclasses import dataclass, field

import numpy as np

Box = tuple[int, int, int, int]


@dataclass
class Region:
    image: np.ndarray  # uint8 HxW grayscale
    target: str
    kind: str  # 'text' | 'table' | 'formula'
    words: list[tuple[str, Box]] = field(default_factory=list)  # in image pixels, after degradations
    chars: list[tuple[str, Box]] = field(default_factory=list)  # empty for formulas


@dataclass
class Page:
    image: np.ndarray  # uint8 HxW grayscale
    regions: list[dict] = field(default_factory=list)  # box, kind, order (None for figures), target
