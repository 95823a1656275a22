"""Training under the engine's pruned attention (saccade/fixation.py): which image keys each layer of each row
may attend to, and that keeping every image token changes nothing."""
import torch

from saccade.data import collate_with_images, encode_region
from saccade.fixation import SparseImageAttention, carry_rows, sparse_forward, top_image_keys
from saccade.masks import block_ids
from saccade.model import SaccadeOCR
from saccade.tokenizer import Tokenizer
from tiny import striped_image, tiny_config


def test_each_row_keeps_its_highest_scoring_image_keys_ties_to_the_lower_index():
    keys = torch.tensor([[False, True, True, True, True, False], [False, True, True, False, False, False]])
    scores = torch.tensor([[9.0, 0.1, 0.5, 0.5, 0.2, 9.0], [9.0, 0.3, 0.7, 9.0, 9.0, 9.0]])[:, None, :]
    picked = top_image_keys(scores, keys, keep_ratio=0.5)  # 4 image keys -> 2; 2 -> 1
    assert picked[0, 0].tolist() == [False, False, True, True, False, False]
    assert picked[1, 0].tolist() == [False, False, True, False, False, False]
    tie = top_image_keys(torch.zeros(1, 1, 6), keys[:1], keep_ratio=0.25)
    assert tie[0, 0].tolist() == [False, True, False, False, False, False]


def _batch(config, offset=3):
    samples = [encode_region(striped_image(seed), text, "text", config, Tokenizer(), torch.Generator().manual_seed(seed),
                             offset=offset) for seed, text in enumerate(("hello world, again", "ab"))]
    return collate_with_images(samples), samples


def test_rows_carry_the_pick_of_the_row_that_wrote_the_last_committed_token():
    config = tiny_config()
    batch, samples = _batch(config)
    carry = carry_rows(batch["attn"], batch["ar_labels"], batch["layout"])
    B = config["diffusion_block_size"]
    for b, s in enumerate(samples):
        P, L = s["prefix_len"], s["stream_len"]
        assert (carry[b, :P] == -1).all() and (carry[b, P + 3 * L:] == -1).all()  # prefill and padding
        assert carry[b, P:P + L].tolist() == list(range(P - 1, P + L - 1))  # AR: the step before
        blocks = block_ids(L, B, 3)
        for i in range(L):
            j0 = int((blocks < blocks[i]).sum())  # the block's first target index
            expected = P + max(j0 - 2, -1)
            assert carry[b, P + L + i] == expected and carry[b, P + 2 * L + i] == expected, (b, i)


def test_layers_before_the_focal_one_see_the_carried_pick_after_it_their_own():
    mask = torch.ones(1, 2, 4, dtype=torch.bool)
    keys = torch.tensor([[False, True, True, True]])
    carried = torch.tensor([[[True, True, False, False], [True, True, True, True]]])
    plan = SparseImageAttention(focal=1, keep_ratio=1 / 3, keys=keys, carried=carried)
    assert plan.layer_mask(1, mask) is mask
    assert plan.layer_mask(0, mask)[0].tolist() == [[True, True, False, False], [True, True, True, True]]
    plan.observe(torch.tensor([[[0.0, 0.1, 0.2, 0.9], [0.0, 0.8, 0.1, 0.1]]]))
    assert plan.layer_mask(2, mask)[0].tolist() == [[True, False, False, True], [True, True, False, False]]


def test_keeping_every_image_token_is_the_full_forward_and_keeping_few_is_not():
    torch.manual_seed(0)
    config = tiny_config()
    model = SaccadeOCR(config).double().eval()
    batch, _ = _batch(config)
    with torch.no_grad():
        embeds = model.encode_images([p.double() for p in batch["patches"]], batch["grids"])
        full = model(batch["input_ids"], batch["pos3"], batch["attn"], embeds)
        kept = sparse_forward(model, batch, embeds, focal=1, keep_ratio=1.0)
        pruned = sparse_forward(model, batch, embeds, focal=1, keep_ratio=0.1)
    assert torch.allclose(kept, full, atol=1e-12)
    assert not torch.allclose(pruned, full, atol=1e-3)
