"""An auxiliary training objective for the vision path: which characters each image token covers.

The dual loss reaches the vision encoder only through the decoder's attention, and a decoder that has not
learnt to read yet lowers its loss from the words before instead (run tiny-v3 wrote fluent non-words for every
image after 1,300 steps). The generator knows every character's box, so each merged image cell can be told
directly which characters lie in it: a linear head over the image embeddings, multi-label, trained beside the
dual loss and dropped at export. It is not part of the checkpoint format.
"""
import torch
import torch.nn.functional as F


def glyph_targets(chars, source_hw, grid_hw, tokenizer):
    """(cell, token id) pairs: every visible character of `chars` (text, (x0, y0, x1, y1) in the source
    image's pixels) in the merged cell of a rows x cols grid laid over the resized image that holds its box's
    centre. Returns a LongTensor [n, 2]; None when the region has no character boxes (nothing is known)."""
    if not chars:
        return None
    (h, w), (rows, cols) = source_hw, grid_hw
    pairs = set()
    for text, (x0, y0, x1, y1) in chars:
        if not text.strip() or text not in tokenizer.vocab:
            continue
        r = min(rows - 1, max(0, int((y0 + y1) / 2 / h * rows)))
        c = min(cols - 1, max(0, int((x0 + x1) / 2 / w * cols)))
        pairs.add((r * cols + c, tokenizer.vocab[text]))
    return torch.tensor(sorted(pairs), dtype=torch.long).reshape(-1, 2)


def glyph_loss(head, image_embeds, glyphs):
    """Binary cross-entropy of every (cell, vocabulary entry) over the regions that carry targets, summed over
    the vocabulary and divided by the number of characters present, so it reads in nats per character."""
    logits, labels = [], []
    for emb, pairs in zip(image_embeds, glyphs):
        if pairs is None:
            continue
        y = torch.zeros(emb.shape[0], head.out_features, device=emb.device)
        y[pairs[:, 0], pairs[:, 1]] = 1.0
        logits.append(head(emb))
        labels.append(y)
    if not logits:
        return None
    y = torch.cat(labels)
    bce = F.binary_cross_entropy_with_logits(torch.cat(logits), y, reduction="sum")
    return bce / y.sum().clamp(min=1.0)
