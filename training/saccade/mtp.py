"""The MTP head's objective (model.MtpHead): `mtp_loss` trains it over a frozen trunk (train_mtp.py: the
shipped model's own outputs do not change), `chain_loss` from hidden states that keep their gradient (train.py
--mtp-weight: the head trained with the model).

Drafting chains the head: the chain anchored at committed position a puts depth 1 at a (the trunk's h_a and
the token at a + 1), depth k at a + k - 1 (the head's own output at a + k - 2 and its depth-(k - 1) guess).
Depth k at position i therefore attends to the committed depth-1 entries up to i - k + 1 and to the chain's
own entries at i - k + 2 .. i, and every depth at position i predicts the token at i + 2. `chain_logits`
trains every anchor from the prompt on, at every depth, at once with exactly that attention (the engine's
MTP cache holds depth-1 entries of committed positions; the chain's entries are scratch). The image
positions only give keys: no chain is anchored there.
"""
import torch
import torch.nn.functional as F

from .masks import IGNORE
from .model import attention_bias

DRAFTS = 3
"""The chain depth trained by default and drafted per round (the engine's kMtpDrafts)."""


def chain_mask(causal, depth):
    """Keys of depth `depth` queries [n, depth * n] over the rows' depth-1..depth entries, in that order."""
    n = causal.shape[-1]
    i = torch.arange(n)
    blocks = [causal & (i[None, :] <= i[:, None] - depth + 1)]
    for m in range(2, depth + 1):
        blocks.append(i[None, :] == i[:, None] - depth + m)
    return torch.cat(blocks, dim=1)


def chain_logits(model, hidden, next_embeds, pos3, first, depth):
    """One sequence: hidden, next_embeds [T, D], pos3 [T, 3]; chains anchored at `first`.. -> logits
    [depth, T - first, V], depth k's prediction of the token at i + 2 from position i = first + row."""
    head = model.mtp
    cos, sin = model._rope(pos3[None])
    fused = head.fuse(hidden, next_embeds)[None]
    prefix = head.layer.self_attn.keys(head.layer.input_layernorm(fused[:, :first]), cos[:, :first], sin[:, :first])
    cos, sin = cos[:, first:], sin[:, first:]
    n = len(hidden) - first
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    past, out, x = prefix, [], fused[:, first:]
    for k in range(1, depth + 1):
        mask = torch.cat([torch.ones(n, first, dtype=torch.bool), chain_mask(causal, k)], dim=1)
        y, kv, _ = head.layer(x, cos, sin, attention_bias(mask[None], x.dtype), past)
        past = (torch.cat([past[0], kv[0]], 2), torch.cat([past[1], kv[1]], 2))
        out.append(model.lm_head(head.norm(y[0])))
        # depth k + 1 at row r continues depth k's chain from row r - 1
        x = head.fuse(F.pad(y[0, :-1], (0, 0, 1, 0)), next_embeds[first:])[None]
    return torch.stack(out)


def mtp_loss(model, batch, depth):
    """(mean loss over depths, per-depth losses) on the clean streams of a three-stream batch, the trunk
    frozen: it runs without gradients over the clean streams alone."""
    layout = batch["layout"]
    T = max(P + L for P, L in layout)
    ids, pos3, mask = batch["input_ids"][:, :T], batch["pos3"][:, :T], batch["attn"][:, :T, :T]
    with torch.no_grad():
        image_embeds = model.encode_images(batch["patches"], batch["grids"])
        hidden, _ = model.trunk(ids, pos3, mask, image_embeds)
    return chain_loss(model, batch, hidden, image_embeds, depth)


def chain_loss(model, batch, hidden, image_embeds, depth):
    """(mean loss over depths, per-depth losses) of the head's chains over the clean streams, from the trunk's
    last hidden states `hidden` [B, >= P + L, D] of the batch's sequences (the clean stream never sees the
    corrupted ones, so those of a three-stream forward serve). With gradients in `hidden`, the head's loss
    trains the trunk too (the joint recipe of DeepSeek-V3 and GLM)."""
    layout = batch["layout"]
    T = max(P + L for P, L in layout)
    ids, pos3 = batch["input_ids"][:, :T], batch["pos3"][:, :T]
    embeds = model.embed(ids, image_embeds)
    logits, targets = [], []
    for b, (P, L) in enumerate(layout):
        next_embeds = torch.cat([embeds[b, 1:P + L], torch.zeros_like(embeds[b, :1])])
        logits.append(chain_logits(model, hidden[b, :P + L], next_embeds, pos3[b, :P + L], P - 1, depth))
        # row r (position P - 1 + r) predicts the token at P + 1 + r: the AR label of position P + r
        targets.append(batch["ar_labels"][b, P:P + L + 1])
    logits, targets = torch.cat(logits, dim=1), torch.cat(targets)
    losses = []
    for k in range(depth):
        rows = torch.cat([torch.arange(L + 1) for _, L in layout])
        target = torch.where(rows >= k, targets, IGNORE)  # a chain is anchored at the prompt or later
        losses.append(F.cross_entropy(logits[k], target, ignore_index=IGNORE))
    return torch.stack(losses).mean(), [l.item() for l in losses]
