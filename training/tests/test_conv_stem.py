import pytest
import torch
import torch.nn.functional as F

from saccade.model import ConvStem
from saccade.preprocess import patchify
from train import adapt_state
from tiny import tiny_config


def test_stem_over_patches_equals_convolutions_over_the_image():
    torch.manual_seed(0)
    stem = ConvStem(16, 1, [3, 5, 6, 7])
    pixels = torch.randn(48, 80)
    patches, grid = patchify(pixels, 16)
    x = pixels[None, None]
    for conv in stem.convs:
        x = F.gelu(conv(x))
    expected = x[0].permute(1, 2, 0).reshape(-1, 7)  # row-major patches
    assert grid == (3, 5)
    assert torch.allclose(stem(patches, grid), expected, atol=1e-6)


def test_stem_depth_must_make_the_patch_size():
    with pytest.raises(ValueError, match="16-pixel"):
        ConvStem(16, 1, [8, 8, 8])


def test_a_stem_model_starts_from_a_linear_one_with_only_the_stem_and_patch_embedding_fresh():
    from saccade.model import SaccadeOCR
    source = tiny_config()
    target = tiny_config()
    target["vision_config"]["stem_channels"] = [4, 4, 8, 8]
    state, fresh = adapt_state(SaccadeOCR(source).state_dict(), source, target)
    missing, unexpected = SaccadeOCR(target).load_state_dict(state, strict=False)
    assert not unexpected
    assert set(missing) == fresh
    assert "vision.patch_embed.weight" in fresh and "vision.stem.convs.3.bias" in fresh
    with pytest.raises(ValueError, match="different convolutional stem"):
        adapt_state(SaccadeOCR(target).state_dict(), target, source)
