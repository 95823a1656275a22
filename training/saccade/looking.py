"""An auxiliary training objective for the decoder: one attention head looks where the next character is.

A decoder-only reader has to learn two things from the dual loss alone: what each image cell shows, and which
cell holds the character it writes next. The glyph objective (glyphs.py) teaches the first directly; this
one teaches the second. The generator knows every character's box, so one head of one middle layer is told,
at every position that predicts a character (the clean stream's next token, and each masked slot of the
corrupted streams), to put its attention on the image cells that box overlaps. The head stays an ordinary
head: nothing is added to the model or the checkpoint format, and the engine's fixation, which follows where
attention on image tokens goes, inherits heatmaps that point at the text being written.
"""
import math

import torch

LOOK_LAYER = 2
"""Decoder layer of the supervised head: the layers below it can work out how far the line has been read."""
LOOK_HEAD = 0


def look_targets(chars, source_hw, grid_hw, target_ids, tokenizer, sample):
    """(query position, image-cell position) pairs of one training sequence, as a LongTensor [n, 3] whose
    last column numbers the queries (pairs of one query share it); None when nothing is known.

    `chars` are the generator's visible characters with their boxes, in reading order; they pair one to one
    with the target's single-character tokens that are not whitespace (multi-character tokens such as table
    tags have no box). A region where the two do not pair up carries no targets rather than wrong ones.
    """
    if not chars:
        return None
    visible = [(text, box) for text, box in chars if text.strip()]
    slots = [i for i, t in enumerate(target_ids)
             if len(tokenizer.tokens[t]) == 1 and tokenizer.tokens[t].strip()]
    if len(slots) != len(visible) or any(tokenizer.tokens[target_ids[i]] != text
                                         for i, (text, _) in zip(slots, visible)):
        return None
    (h, w), (rows, cols) = source_hw, grid_hw
    P, L = sample["prefix_len"], sample["stream_len"]
    diff = sample["diff_labels"]
    rows_out, query = [], 0
    for i, (_, (x0, y0, x1, y1)) in zip(slots, visible):
        r0 = min(rows - 1, max(0, int(y0 / h * rows)))
        r1 = min(rows - 1, max(r0, math.ceil(y1 / h * rows) - 1))
        c0 = min(cols - 1, max(0, int(x0 / w * cols)))
        c1 = min(cols - 1, max(c0, math.ceil(x1 / w * cols) - 1))
        cells = [1 + r * cols + c for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]  # BOS comes first
        masked = P + L + i if diff[P + L + i] >= 0 else P + 2 * L + i
        for q in (P - 1 + i, masked):
            rows_out.extend((q, k, query) for k in cells)
            query += 1
    return torch.tensor(rows_out, dtype=torch.long)


def look_loss(probs, looks):
    """Mean over the supervised queries of -log(attention the head puts on the character's cells).

    probs [B, T, S]: the supervised head's attention; looks: per row, look_targets' pairs or None."""
    losses = []
    for b, pairs in enumerate(looks):
        if pairs is None:
            continue
        pairs = pairs.to(probs.device)
        got = probs[b, pairs[:, 0], pairs[:, 1]]
        per_query = torch.zeros(int(pairs[-1, 2]) + 1, dtype=got.dtype, device=got.device)
        per_query = per_query.index_add(0, pairs[:, 2], got)
        losses.append(-torch.log(per_query.clamp(min=1e-6)))
    if not losses:
        return None
    return torch.cat(losses).mean()
