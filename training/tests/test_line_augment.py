import torch

from saccade.line_augment import double_spaces, drop_readings, jitter_features
from saccade.line_model import reading_index

BLANK, SPACE = 5, 0


def columns(classes):
    """A one-hot CTC distribution over 7 classes (blank 5) showing `classes` column by column."""
    return torch.nn.functional.one_hot(torch.tensor(classes), 7).float()


def test_a_dropped_space_leaves_the_reading_and_the_index():
    ctc = columns([1, 1, BLANK, SPACE, BLANK, 2, 2, BLANK, 3])
    out = drop_readings(ctc, BLANK, SPACE, 1.0, 0.0, torch.Generator().manual_seed(0))
    assert out.argmax(-1).tolist() == [1, 1, BLANK, BLANK, BLANK, 2, 2, BLANK, 3]
    assert reading_index(out, BLANK).tolist() == [0, 0, 1, 1, 1, 1, 1, 2, 2]
    assert torch.allclose(out.sum(-1), torch.ones(9))


def test_other_characters_drop_by_their_own_chance():
    ctc = columns([1, BLANK, SPACE, 2, 2, 3])
    g = torch.Generator().manual_seed(0)
    assert torch.equal(drop_readings(ctc, BLANK, SPACE, 0.0, 0.0, g), ctc)
    out = drop_readings(ctc, BLANK, SPACE, 0.0, 1.0, g)
    assert out.argmax(-1).tolist() == [BLANK, BLANK, SPACE, BLANK, BLANK, BLANK]


def test_jitter_scales_with_each_channel_spread():
    feats = torch.stack([torch.zeros(50), torch.linspace(-1, 1, 50)], dim=1)
    out = jitter_features(feats, 0.5, torch.Generator().manual_seed(0))
    assert torch.equal(out[:, 0], feats[:, 0])  # a constant channel has no spread: nothing added
    assert 0.1 < (out[:, 1] - feats[:, 1]).std() < 0.5


def test_a_doubled_space_is_a_second_character_of_the_reading():
    ctc = columns([1, BLANK, SPACE, BLANK, BLANK, 2, BLANK, SPACE, 3])
    out = double_spaces(ctc, BLANK, SPACE, 1.0, torch.Generator().manual_seed(0))
    # After the first space there is room (two blank columns); the second has none on either side.
    assert out.argmax(-1).tolist() == [1, BLANK, SPACE, BLANK, SPACE, 2, BLANK, SPACE, 3]
    assert reading_index(out, BLANK).tolist()[-1] == reading_index(ctc, BLANK).tolist()[-1] + 1
    assert torch.allclose(out.sum(-1), torch.ones(9))
