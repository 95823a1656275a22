import torch

from saccade.masks import block_ids, build_sample, collate, complementary_masks, padded_target
from saccade.vocab import EOS, MASK


def rule(kind_q, i, kind_k, j, blocks):
    """The issue's attention rule for one (query, key) pair of text slots; kinds: clean, A, B."""
    if kind_q == "clean":
        return kind_k == "clean" and j <= i
    if kind_k == "clean":
        return blocks[j] < blocks[i]
    return kind_k == kind_q and blocks[j] == blocks[i]


def test_attention_mask_cell_by_cell():
    g = torch.Generator().manual_seed(0)
    target = [40, 41, 42, 43, 44, 45, 46]
    s = build_sample(rows=1, cols=2, prompt_id=5, target_ids=target, block_size=4, generator=g, offset=3)
    P, L = s["prefix_len"], s["stream_len"]
    assert P == 4  # BOS, 2 image tokens, prompt
    blocks = block_ids(L, 4, 3).tolist()
    assert blocks[:3] == [0, 0, 0] and blocks[3:7] == [1, 1, 1, 1]
    attn = s["attn"]
    kinds = ["clean", "A", "B"]
    for q in range(P + 3 * L):
        for k in range(P + 3 * L):
            if q < P:
                expected = k <= q
            elif k < P:
                expected = True
            else:
                kq, i = kinds[(q - P) // L], (q - P) % L
                kk, j = kinds[(k - P) // L], (k - P) % L
                expected = rule(kq, i, kk, j, blocks)
            assert bool(attn[q, k]) == expected, (q, k)


def test_corrupted_slots_never_see_clean_tokens_of_own_or_later_blocks():
    g = torch.Generator().manual_seed(1)
    s = build_sample(2, 3, 6, list(range(40, 90)), 8, g)
    P, L = s["prefix_len"], s["stream_len"]
    attn = s["attn"]
    for stream in (1, 2):
        for i in range(L):
            seen_clean = attn[P + stream * L + i, P:P + L].nonzero().squeeze(1)
            # Everything seen in the clean stream lies strictly before the slot's own index.
            assert all(j < i for j in seen_clean.tolist())
        assert not attn[P:P + L, P + L:].any(), "the clean stream must not see corrupted streams"


def test_complementary_masks_cover_every_target_exactly_once():
    for seed in range(20):
        g = torch.Generator().manual_seed(seed)
        target = list(range(40, 40 + 5 + seed * 3))
        s = build_sample(1, 4, 5, target, 8, g)
        P, L = s["prefix_len"], s["stream_len"]
        a = s["input_ids"][P + L:P + 2 * L] == MASK
        b = s["input_ids"][P + 2 * L:] == MASK
        assert torch.equal(a ^ b, torch.ones(L, dtype=torch.bool))
        supervised = (s["diff_labels"][P + L:P + 2 * L] != -100).long() + (s["diff_labels"][P + 2 * L:] != -100)
        assert torch.equal(supervised, torch.ones(L, dtype=torch.long))
        y = s["input_ids"][P:P + L]
        assert torch.equal(s["diff_labels"][P + L:P + 2 * L][a], y[a])


def test_mask_ratios_vary_per_block():
    g = torch.Generator().manual_seed(3)
    blocks = block_ids(32 * 8, 32, 0)
    ratios = {round(complementary_masks(blocks, g)[0][blocks == b].float().mean().item(), 2)
              for b in range(8)}
    assert len(ratios) > 3


def test_positions_shared_by_the_three_streams_and_last_block_filled_with_eos():
    g = torch.Generator().manual_seed(2)
    s = build_sample(2, 3, 7, [40, 41, 42], 4, g, offset=2)
    P, L = s["prefix_len"], s["stream_len"]
    pos = s["pos3"]
    assert torch.equal(pos[P:P + L], pos[P + L:P + 2 * L]) and torch.equal(pos[P:P + L], pos[P + 2 * L:])
    p = 1 + max(2, 3)
    assert pos[P - 1].tolist() == [p, p, p] and pos[P].tolist() == [p + 1] * 3
    y = padded_target([40, 41, 42], 4, 2)
    assert y.tolist() == [40, 41, 42, EOS, EOS, EOS]  # blocks [0,1] [2..5]


def test_ar_labels_predict_next_token_through_first_eos():
    g = torch.Generator().manual_seed(0)
    s = build_sample(1, 1, 5, [40, 41], 4, g, offset=0)
    P = s["prefix_len"]
    labels = s["ar_labels"]
    assert labels[P - 1] == 40 and labels[P] == 41 and labels[P + 1] == EOS
    assert (labels != -100).sum() == 3


def test_collate_pads_rows_that_only_see_themselves():
    g = torch.Generator().manual_seed(0)
    short = build_sample(1, 1, 5, [40], 4, g)
    long = build_sample(1, 2, 5, list(range(40, 50)), 4, g)
    batch = collate([short, long])
    n = len(short["input_ids"])
    T = batch["input_ids"].shape[1]
    assert T == len(long["input_ids"])
    assert torch.equal(batch["attn"][0, n:, :], torch.eye(T, dtype=torch.bool)[n:])
    assert (batch["ar_labels"][0, n:] == -100).all()
