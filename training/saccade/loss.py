"""The dual-mode objective: 0.5 AR loss on the clean stream + 0.5 diffusion loss on masked slots."""
import torch
import torch.nn.functional as F

from .fixation import sparse_forward
from .glyphs import glyph_loss
from .looking import LOOK_HEAD, LOOK_LAYER, look_loss
from .masks import IGNORE


def dual_loss(logits, ar_labels, diff_labels, ar_weight=0.5):
    """logits [B, T, V]; labels [B, T] with IGNORE where a position carries no loss of that kind."""
    V = logits.shape[-1]
    ar = F.cross_entropy(logits.reshape(-1, V), ar_labels.reshape(-1), ignore_index=IGNORE)
    diff = F.cross_entropy(logits.reshape(-1, V), diff_labels.reshape(-1), ignore_index=IGNORE)
    return ar_weight * ar + (1 - ar_weight) * diff, ar, diff


def batch_loss(model, batch, glyph_head=None, glyph_weight=1.0, look_weight=0.0, fixation=None):
    """(loss, ar, diff, glyph, look): the dual loss, plus glyph_weight times the glyph objective when a head is
    given and look_weight times the look objective when positive; either is None when off or when the batch
    has no character boxes. fixation=(focal layer, keep ratio) trains under the engine's pruned attention
    (fixation.py)."""
    image_embeds = model.encode_images(batch["patches"], batch["grids"])
    watch = (LOOK_LAYER, LOOK_HEAD) if look_weight > 0 else None
    if fixation is not None:
        out = sparse_forward(model, batch, image_embeds, *fixation, watch=watch)
    else:
        out = model(batch["input_ids"], batch["pos3"], batch["attn"], image_embeds, watch=watch)
    logits, probs = out if watch else (out, None)
    look = look_loss(probs, batch["looks"]) if watch else None
    loss, ar, diff = dual_loss(logits, batch["ar_labels"], batch["diff_labels"])
    glyph = glyph_loss(glyph_head, image_embeds, batch["glyphs"]) if glyph_head is not None else None
    if glyph is not None:
        loss = loss + glyph_weight * glyph
    if look is not None:
        loss = loss + look_weight * look
    return loss, ar, diff, glyph, look


@torch.no_grad()
def image_gain(model, batch):
    """How much the image tells the model, in nats per target token of AR loss: the loss with every image
    position given its image's mean embedding (same scale, no content) minus the loss with the real image.
    Near zero means the model writes from its language prior alone, however low its loss."""
    image_embeds = model.encode_images(batch["patches"], batch["grids"])
    blind = [e.mean(0, keepdim=True).expand_as(e) for e in image_embeds]
    losses = []
    for embeds in (blind, image_embeds):
        logits = model(batch["input_ids"], batch["pos3"], batch["attn"], embeds)
        losses.append(dual_loss(logits, batch["ar_labels"], batch["diff_labels"])[1].item())
    return losses[0] - losses[1]
