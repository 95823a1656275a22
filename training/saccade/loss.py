"""The dual-mode objective: 0.5 AR loss on the clean stream + 0.5 diffusion loss on masked slots, and the
auxiliary objectives beside it (glyphs, looks, the MTP head)."""
from typing import NamedTuple, Optional

import torch
import torch.nn.functional as F

from .fixation import sparse_forward
from .glyphs import glyph_loss
from .looking import LOOK_HEAD, LOOK_LAYER, look_loss
from .masks import IGNORE
from .mtp import chain_loss


def dual_loss(logits, ar_labels, diff_labels, ar_weight=0.5):
    """logits [B, T, V]; labels [B, T] with IGNORE where a position carries no loss of that kind."""
    V = logits.shape[-1]
    ar = F.cross_entropy(logits.reshape(-1, V), ar_labels.reshape(-1), ignore_index=IGNORE)
    diff = F.cross_entropy(logits.reshape(-1, V), diff_labels.reshape(-1), ignore_index=IGNORE)
    return ar_weight * ar + (1 - ar_weight) * diff, ar, diff


class Losses(NamedTuple):
    """The total to minimise and its parts; a part is None when off or when the batch gives it nothing."""
    total: torch.Tensor
    ar: torch.Tensor
    diff: torch.Tensor
    glyph: Optional[torch.Tensor] = None
    look: Optional[torch.Tensor] = None
    mtp: Optional[torch.Tensor] = None


def batch_loss(model, batch, glyph_head=None, glyph_weight=1.0, look_weight=0.0, fixation=None, mtp_weight=0.0,
               mtp_depth=3):
    """The dual loss, plus glyph_weight times the glyph objective when a head is given, look_weight times the
    look objective when positive, and mtp_weight times the MTP head's chain loss (saccade/mtp.py, trained with
    the trunk) when positive. fixation=(focal layer, keep ratio) trains under the engine's pruned attention
    (fixation.py); those steps leave the MTP head out."""
    image_embeds = model.encode_images(batch["patches"], batch["grids"])
    watch = (LOOK_LAYER, LOOK_HEAD) if look_weight > 0 else None
    hidden = None
    if fixation is not None:
        out = sparse_forward(model, batch, image_embeds, *fixation, watch=watch)
        logits, probs = out if watch else (out, None)
    else:
        hidden, probs = model.trunk(batch["input_ids"], batch["pos3"], batch["attn"], image_embeds, watch=watch)
        logits = model.lm_head(model.model.norm(hidden))
    look = look_loss(probs, batch["looks"]) if watch else None
    loss, ar, diff = dual_loss(logits, batch["ar_labels"], batch["diff_labels"])
    glyph = glyph_loss(glyph_head, image_embeds, batch["glyphs"]) if glyph_head is not None else None
    if glyph is not None:
        loss = loss + glyph_weight * glyph
    if look is not None:
        loss = loss + look_weight * look
    mtp = chain_loss(model, batch, hidden, image_embeds, mtp_depth)[0] if mtp_weight > 0 and hidden is not None else None
    if mtp is not None:
        loss = loss + mtp_weight * mtp
    return Losses(loss, ar, diff, glyph, look, mtp)


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
