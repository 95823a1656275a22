import torch

from saccade.glyphs import glyph_loss, glyph_targets
from saccade.tokenizer import Tokenizer


def test_each_character_lands_in_the_cell_holding_its_centre():
    tok = Tokenizer()
    # A 40 x 100 source resized onto a 2 x 5 grid of cells: cells are 20 x 20 source pixels.
    chars = [("A", (0, 0, 10, 30)), ("b", (41, 22, 59, 38)), (" ", (60, 0, 70, 10)), ("b", (45, 25, 55, 35))]
    pairs = glyph_targets(chars, (40, 100), (2, 5), tok)
    assert pairs.tolist() == [[0, tok.vocab["A"]], [7, tok.vocab["b"]]]


def test_regions_without_character_boxes_carry_no_targets():
    assert glyph_targets([], (32, 32), (1, 1), Tokenizer()) is None


def test_loss_is_per_character_and_skips_regions_without_targets():
    head = torch.nn.Linear(4, 6)
    torch.nn.init.zeros_(head.weight)
    torch.nn.init.zeros_(head.bias)
    embeds = [torch.randn(3, 4), torch.randn(2, 4)]
    glyphs = [torch.tensor([[0, 1], [2, 5]]), None]
    # All logits zero: every one of the 3 x 6 entries costs ln 2, shared among the 2 characters present.
    loss = glyph_loss(head, embeds, glyphs)
    assert torch.isclose(loss, torch.tensor(18 * 0.6931472 / 2))
    assert glyph_loss(head, embeds, [None, None]) is None
