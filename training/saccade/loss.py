"""The dual-mode objective: 0.5 AR loss on the clean stream + 0.5 diffusion loss on masked slots."""
import torch.nn.functional as F

from .masks import IGNORE


def dual_loss(logits, ar_labels, diff_labels, ar_weight=0.5):
    """logits [B, T, V]; labels [B, T] with IGNORE where a position carries no loss of that kind."""
    V = logits.shape[-1]
    ar = F.cross_entropy(logits.reshape(-1, V), ar_labels.reshape(-1), ignore_index=IGNORE)
    diff = F.cross_entropy(logits.reshape(-1, V), diff_labels.reshape(-1), ignore_index=IGNORE)
    return ar_weight * ar + (1 - ar_weight) * diff, ar, diff


def batch_loss(model, batch):
    image_embeds = model.encode_images(batch["patches"], batch["grids"])
    logits = model(batch["input_ids"], batch["pos3"], batch["attn"], image_embeds)
    return dual_loss(logits, batch["ar_labels"], batch["diff_labels"])
