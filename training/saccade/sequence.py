"""The prefix `[BOS] [IMG] x N [PROMPT]` and its 3-D positions (docs/model-format.md, "Sequence layout")."""
import torch

from .vocab import BOS, IMG


def prefix(rows, cols, prompt_id):
    """Token ids [P], positions [P, 3] and p, the prompt's position (the text counter starts after it)."""
    r = torch.arange(rows).repeat_interleave(cols)
    c = torch.arange(cols).repeat(rows)
    image_pos = torch.stack([torch.ones_like(r), 1 + r, 1 + c], dim=1)
    p = 1 + max(rows, cols)
    ids = torch.tensor([BOS] + [IMG] * (rows * cols) + [prompt_id])
    pos = torch.cat([torch.zeros(1, 3, dtype=torch.long), image_pos, torch.full((1, 3), p)])
    return ids, pos, p


def text_positions(start, n):
    """Positions [n, 3] of n text tokens whose first sits at scalar position `start`."""
    return torch.arange(start, start + n)[:, None].expand(n, 3).clone()
