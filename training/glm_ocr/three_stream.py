"""The three-stream layout of the dual-mode conversion, for a GLM-OCR prompt (BRIEF section 2).

The same recipe as our own model's (training/saccade/masks.py), with GLM's ids and M-RoPE positions:

    prefix (image + prompt, as the processor renders it) | clean y_0..y_{L-1} | corrupted A | corrupted B

y is the target, EOS, and EOS padding to the end of the last block; blocks of `block_size` target positions
start at a random offset, so a draft block learns to start anywhere. Stream A masks a fraction t of each
block (t drawn per block), stream B exactly the complement. The three streams share their positions.

Attention (True = may attend): the prefix causally; clean i the prefix and clean <= i; a corrupted slot of
block b the prefix, the clean blocks before b and its own stream's block b, both ways.
Labels (same convention as ours, so draft and verify agree): the prefix's last row and clean i predict
y_{i+1} up to the first EOS (AR); a masked corrupted slot predicts the token at its own position.
"""
import torch

from saccade.masks import block_ids, complementary_masks, padded_target, three_stream_layout


def three_stream(prefix_len, target_ids, block_size, mask_id, eos_id, generator, offset=None):
    """The text part of one sequence after a prefix of prefix_len rows. Returns stream_ids [3L], attn
    [T, T] over the whole sequence, ar_labels [T], diff_labels [T] (T = prefix_len + 3L) and L."""
    if offset is None:
        offset = int(torch.randint(block_size, (), generator=generator))
    P = prefix_len
    y = padded_target(target_ids, block_size, offset, eos_id)
    L = len(y)
    n_real = len(target_ids) + 1  # through the first EOS
    blocks = block_ids(L, block_size, offset)
    mask_a, mask_b = complementary_masks(blocks, generator)
    stream_ids = torch.cat([y, torch.where(mask_a, mask_id, y), torch.where(mask_b, mask_id, y)])

    attn, ar_labels, diff_labels = three_stream_layout(P, y, n_real, blocks, mask_a, mask_b)
    return {"stream_ids": stream_ids, "attn": attn, "ar_labels": ar_labels, "diff_labels": diff_labels,
            "stream_len": L}


def stream_positions(prefix_positions, stream_len):
    """prefix_positions [3, P] from get_rope_index -> [3, P + 3L]: a text row after the prompt advances all
    three axes together from max + 1, and the three streams repeat the same positions."""
    start = int(prefix_positions.max()) + 1
    text = (start + torch.arange(stream_len)).expand(3, -1)
    return torch.cat([prefix_positions, text, text, text], dim=1)
