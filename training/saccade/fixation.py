"""Training under the engine's pruned attention (visual fixation, native/src/decode/fixation.cc and
docs/decisions/0004), so that a model keeps its accuracy when most image tokens are left out.

In the engine, a focal layer attends to the whole image and each query row keeps the image tokens its
attention (summed over heads) weighs most; the layers after it attend to that row's pick, the layers before
it to the pick the previous forward's focal layer made for the row that committed the last token (the
carry); text is always attended and the KV cache keeps everything. A model trained with full attention only
loses a third of its accuracy this way (bench, keepRatio 0.08), because its other layers never had to read
from a few tokens.

A teacher-forced forward reproduces it row by row. The decode step that feeds the token at clean position q
carries the pick of row q - 1, the step before, which wrote that token; the draft forward of a block whose
first token is the target's j0-th carries the pick of the verify row that wrote the last committed token
(clean row P + j0 - 2, or the prefix's last row P - 1); prefix rows carry nothing (the region's first
forward attends fully). The carried picks come from rows the forward has not reached when its
early layers run, so a first pass with full attention and no gradient supplies them; the picks of the
focal layer itself, which the later layers use, come from the training pass.
"""
import torch

from .masks import IGNORE


def top_image_keys(scores, keys, keep_ratio):
    """[B, T, S] bool: for every row, the ceil(keep_ratio * N) image keys with the highest scores, N being
    its sample's image tokens (ties to the lower index, as the engine's top_k). scores [B, T, S], keys [B, S]
    bool (True at image tokens)."""
    n = keys.sum(-1)
    k = torch.ceil(keep_ratio * n.double()).long().clamp(min=1)
    masked = scores.masked_fill(~keys[:, None, :], float("-inf"))
    order = torch.sort(masked, dim=-1, descending=True, stable=True).indices
    positions = torch.arange(order.shape[-1], device=order.device).expand_as(order)
    ranks = torch.empty_like(order).scatter_(-1, order, positions)
    return (ranks < k[:, None, None]) & keys[:, None, :]


def carry_rows(mask, ar_labels, layout):
    """[B, T] long: the row whose focal pick each row's pre-focal layers attend to, -1 where they see the
    whole image (prefix and padding rows). layout: per sample (prefix length P, stream length L)."""
    B, T, _ = mask.shape
    carry = torch.full((B, T), -1, dtype=torch.long)
    for b, (P, L) in enumerate(layout):
        if ar_labels[b, P - 1] == IGNORE:
            raise ValueError(f"sample {b}: the prefix's last row does not predict the first target token")
        carry[b, P:P + L] = torch.arange(P - 1, P + L - 1)
        # A corrupted row sees the clean tokens of the earlier blocks: their count is its block's start j0.
        j0 = mask[b, P + L:P + 3 * L, P:P + L].sum(-1).cpu()
        carry[b, P + L:P + 3 * L] = P + (j0 - 2).clamp(min=-1)
    return carry.to(mask.device)


class SparseImageAttention:
    """The per-layer masks of one pruned forward (SaccadeOCR.forward's `fixation`).

    carried: [B, T, S] bool, each row's carried pick (True everywhere on rows that carry nothing); None leaves
    the layers before the focal one on full attention (the pass that only scouts the picks)."""

    def __init__(self, focal, keep_ratio, keys, carried):
        self.focal, self.keep_ratio, self.keys = focal, keep_ratio, keys
        self.carried, self.own = carried, None

    def layer_mask(self, layer, mask):
        pick = self.carried if layer < self.focal else self.own
        if layer == self.focal or pick is None:
            return mask
        return mask & (~self.keys[:, None, :] | pick)

    def observe(self, scores):
        """The focal layer's attention on every key, summed over heads [B, T, S]: each row's own pick."""
        self.own = top_image_keys(scores.detach(), self.keys, self.keep_ratio)


def sparse_forward(model, batch, image_embeds, focal, keep_ratio, watch=None):
    """The model's forward under pruned attention: a full-attention pass without gradient picks the carried
    image tokens, then the returned pass runs with every non-focal layer narrowed as the engine narrows it."""
    keys = batch["input_ids"] == model.config["image_token_id"]
    ids, pos3, mask = batch["input_ids"], batch["pos3"], batch["attn"]
    with torch.no_grad():
        scouted = SparseImageAttention(focal, keep_ratio, keys, None)
        model(ids, pos3, mask, image_embeds, fixation=scouted)
    carry = carry_rows(mask, batch["ar_labels"], batch["layout"])
    rows = carry.clamp(min=0)
    carried = torch.gather(scouted.own, 1, rows[:, :, None].expand_as(scouted.own)) | (carry < 0)[:, :, None]
    return model(ids, pos3, mask, image_embeds, watch=watch,
                 fixation=SparseImageAttention(focal, keep_ratio, keys, carried))
