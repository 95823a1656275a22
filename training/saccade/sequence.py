"""The prefix `[BOS] [IMG] x N [PROMPT]` and its 3-D positions (docs/model-format.md, "Sequence layout")."""
import torch

from .vocab import BOS, IMG


def prefix(rows, cols, prompt_id, reading=None):
    """Token ids [P], positions [P, 3] and p, the prompt's position (the text counter starts after it).

    reading [rows * cols] (a line model's, line_model.reading_index): each image token sits at p + its reading
    index on all three axes instead of at its grid cell, so that the text row that writes character n is as
    far from the column the encoder read as character n as any row is from itself."""
    p = 1 + max(rows, cols)
    if reading is None:
        r = torch.arange(rows).repeat_interleave(cols)
        c = torch.arange(cols).repeat(rows)
        image_pos = torch.stack([torch.ones_like(r), 1 + r, 1 + c], dim=1)
    else:
        image_pos = (p + torch.as_tensor(reading, dtype=torch.long))[:, None].expand(-1, 3)
    ids = torch.tensor([BOS] + [IMG] * (rows * cols) + [prompt_id])
    pos = torch.cat([torch.zeros(1, 3, dtype=torch.long), image_pos, torch.full((1, 3), p)])
    return ids, pos, p


def text_positions(start, n):
    """Positions [n, 3] of n text tokens whose first sits at scalar position `start`."""
    return torch.arange(start, start + n)[:, None].expand(n, 3).clone()
