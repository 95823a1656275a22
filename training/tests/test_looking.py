import math

import torch

from saccade.looking import look_loss, look_targets
from saccade.masks import build_sample
from saccade.model import SaccadeOCR
from saccade.tokenizer import Tokenizer
from tests.tiny import tiny_config


def sample_for(target_ids, rows=2, cols=5):
    return build_sample(rows, cols, 5, target_ids, 8, torch.Generator().manual_seed(0), offset=0)


def test_each_character_is_looked_for_from_its_ar_and_its_masked_slot():
    tok = Tokenizer()
    ids = tok.encode("Ab c")
    sample = sample_for(ids)
    P, L = sample["prefix_len"], sample["stream_len"]  # P = BOS + 10 cells + prompt
    # A 40 x 100 source on a 2 x 5 grid: cells are 20 x 20 source pixels; image cell k sits at position 1 + k.
    chars = [("A", (0, 0, 10, 30)), ("b", (41, 22, 59, 38)), (" ", (60, 0, 70, 10)), ("c", (85, 0, 99, 15))]
    pairs = look_targets(chars, (40, 100), (2, 5), ids, tok, sample).tolist()

    def masked(i):
        return P + L + i if sample["diff_labels"][P + L + i] >= 0 else P + 2 * L + i

    expected = []
    for query, (i, cells) in enumerate([(0, [0, 5]), (0, [0, 5]), (1, [7]), (1, [7]), (3, [4]), (3, [4])]):
        q = P - 1 + i if query % 2 == 0 else masked(i)
        expected += [[q, 1 + c, query] for c in cells]
    assert pairs == expected


def test_regions_whose_boxes_do_not_pair_with_the_target_carry_no_targets():
    tok = Tokenizer()
    ids = tok.encode("Ab")
    sample = sample_for(ids)
    assert look_targets([("A", (0, 0, 10, 10)), ("x", (20, 0, 30, 10))], (40, 100), (2, 5), ids, tok, sample) is None
    assert look_targets([("A", (0, 0, 10, 10))], (40, 100), (2, 5), ids, tok, sample) is None
    assert look_targets([], (40, 100), (2, 5), ids, tok, sample) is None


def test_loss_is_minus_log_of_the_attention_on_the_cells_summed_per_query():
    probs = torch.zeros(2, 4, 4)
    probs[0, 2] = torch.tensor([0.1, 0.2, 0.3, 0.4])
    probs[0, 3] = torch.tensor([0.0, 0.0, 0.0, 1.0])
    looks = [torch.tensor([[2, 1, 0], [2, 2, 0], [3, 3, 1]]), None]
    loss = look_loss(probs, looks)
    assert math.isclose(loss.item(), (-math.log(0.5) - math.log(1.0)) / 2, rel_tol=1e-6)
    assert look_loss(probs, [None, None]) is None


def test_watching_a_head_returns_its_attention_and_leaves_the_logits_alone():
    torch.manual_seed(0)
    model = SaccadeOCR(tiny_config()).eval()
    sample = sample_for([10, 11, 12])
    ids, pos3, attn = sample["input_ids"][None], sample["pos3"][None], sample["attn"][None]
    plain = model(ids, pos3, attn)
    logits, probs = model(ids, pos3, attn, watch=(1, 3))
    assert torch.equal(plain, logits)
    assert probs.shape == attn.shape
    assert torch.allclose(probs.sum(-1), torch.ones(probs.shape[:2]))
    assert torch.all(probs[~attn] == 0)
