"""The three-stream training layout: clean stream + two complementary corrupted streams in one sequence.

Order: `prefix | clean y_0..y_{L-1} | corrupted A | corrupted B`, where y is the target, EOS, and EOS
padding up to the end of the last block. All three streams share the same position ids. Blocks of B target
positions start at a random offset so that blocks learn to start anywhere (decision 0002). In each block,
stream A masks a random fraction t (t drawn per block) and stream B masks exactly the complement.

Attention (True = may attend):
- prefix: causal over the prefix;
- clean index i: the prefix and clean indices <= i;
- corrupted index i in block b: the prefix, clean indices in blocks < b, and its own stream's block b.
Labels: the AR loss reads the logit at the prompt and at clean i (predicting y_{i+1}) up to the first EOS;
the diffusion loss reads the logit at each masked corrupted slot, predicting the token at that same position.
"""
import torch

from .sequence import prefix, text_positions
from .vocab import EOS, MASK

IGNORE = -100


def block_ids(length, block_size, offset):
    """Block index of each target position when the first block boundary sits at `offset`."""
    return (torch.arange(length) + (block_size - offset) % block_size) // block_size


def padded_target(target_ids, block_size, offset, eos_id=EOS):
    """target + EOS, then EOS until the last block is full."""
    y = list(target_ids) + [eos_id]
    shift = (block_size - offset) % block_size
    y += [eos_id] * (-(len(y) + shift) % block_size)
    return torch.tensor(y)


def complementary_masks(blocks, generator):
    """Stream A masks round(t * n) random slots of each block (t ~ U(0, 1) per block); B the rest."""
    mask_a = torch.zeros(len(blocks), dtype=torch.bool)
    for b in blocks.unique():
        idx = (blocks == b).nonzero().squeeze(1)
        t = torch.rand((), generator=generator).item()
        k = int(round(t * len(idx)))
        chosen = idx[torch.randperm(len(idx), generator=generator)[:k]]
        mask_a[chosen] = True
    return mask_a, ~mask_a


def three_stream_layout(P, y, n_real, blocks, mask_a, mask_b):
    """Attention [T, T] and labels [T] of `prefix (P rows) | clean stream | stream A | stream B` over the
    padded target y [L] (T = P + 3L) whose first n_real tokens run through the first EOS: the prefix and the
    clean stream causal; each corrupted stream sees the prefix, the clean stream's earlier blocks and its own
    block whole. The clean stream carries the AR labels (from the prefix's last row), each corrupted stream
    the diffusion labels of its masked slots."""
    L = len(y)
    T = P + 3 * L
    attn = torch.zeros(T, T, dtype=torch.bool)
    attn[:P, :P] = torch.ones(P, P, dtype=torch.bool).tril()
    clean = slice(P, P + L)
    attn[clean, :P] = True
    attn[clean, clean] = torch.ones(L, L, dtype=torch.bool).tril()
    earlier = blocks[None, :] < blocks[:, None]  # [query i, key j]: block(j) < block(i)
    same = blocks[None, :] == blocks[:, None]
    for s in (1, 2):
        rows_s = slice(P + s * L, P + (s + 1) * L)
        attn[rows_s, :P] = True
        attn[rows_s, clean] = earlier
        attn[rows_s, rows_s] = same

    ar_labels = torch.full((T,), IGNORE)
    ar_labels[P - 1] = y[0]
    ar_labels[P:P + n_real - 1] = y[1:n_real]
    diff_labels = torch.full((T,), IGNORE)
    diff_labels[P + L:P + 2 * L] = torch.where(mask_a, y, IGNORE)
    diff_labels[P + 2 * L:] = torch.where(mask_b, y, IGNORE)
    return attn, ar_labels, diff_labels


def build_sample(rows, cols, prompt_id, target_ids, block_size, generator, offset=None, reading=None):
    """One training sequence. Returns dict of input_ids [T], pos3 [T, 3], attn [T, T], ar_labels [T],
    diff_labels [T]. reading: a line model's image positions (sequence.prefix)."""
    if offset is None:
        offset = int(torch.randint(block_size, (), generator=generator))
    pre_ids, pre_pos, p = prefix(rows, cols, prompt_id, reading)
    P = len(pre_ids)
    y = padded_target(target_ids, block_size, offset)
    L = len(y)
    n_real = len(target_ids) + 1  # through the first EOS
    blocks = block_ids(L, block_size, offset)
    mask_a, mask_b = complementary_masks(blocks, generator)

    ids = torch.cat([pre_ids, y, torch.where(mask_a, MASK, y), torch.where(mask_b, MASK, y)])
    tpos = text_positions(p + 1, L)
    pos3 = torch.cat([pre_pos, tpos, tpos, tpos])

    attn, ar_labels, diff_labels = three_stream_layout(P, y, n_real, blocks, mask_a, mask_b)
    return {"input_ids": ids, "pos3": pos3, "attn": attn, "ar_labels": ar_labels, "diff_labels": diff_labels,
            "prefix_len": P, "stream_len": L}


def collate(samples, pad_id=0):
    """Pad to the longest sequence; padding rows attend to themselves only and carry no labels."""
    T = max(len(s["input_ids"]) for s in samples)
    B = len(samples)
    ids = torch.full((B, T), pad_id)
    pos3 = torch.zeros(B, T, 3, dtype=torch.long)
    attn = torch.eye(T, dtype=torch.bool).repeat(B, 1, 1)
    ar = torch.full((B, T), IGNORE)
    diff = torch.full((B, T), IGNORE)
    for b, s in enumerate(samples):
        n = len(s["input_ids"])
        ids[b, :n] = s["input_ids"]
        pos3[b, :n] = s["pos3"]
        attn[b, :n, :n] = s["attn"]
        ar[b, :n] = s["ar_labels"]
        diff[b, :n] = s["diff_labels"]
    return {"input_ids": ids, "pos3": pos3, "attn": attn, "ar_labels": ar, "diff_labels": diff}
