import numpy as np
import torch
import torch.nn.functional as F

from saccade.preprocess import patchify, preprocess, target_size

IMAGE = {"max_image_tokens": 768, "min_height": 32, "unit": 16, "mean": 0.5, "std": 0.5}


def test_short_images_are_scaled_up_to_min_height():
    assert target_size(200, 16, IMAGE) == (400, 32)


def test_large_images_are_capped_at_max_image_tokens():
    W, H = target_size(4000, 3000, IMAGE)
    assert (W // 16) * (H // 16) <= IMAGE["max_image_tokens"]
    assert abs(W / H - 4 / 3) < 0.1


def test_sizes_round_to_units_and_resample_like_torch_bilinear():
    img = (np.arange(37 * 101) % 255).astype(np.uint8).reshape(37, 101)
    x = preprocess(img, IMAGE)
    assert x.shape == (32, 96)
    ref = F.interpolate(torch.tensor(img, dtype=torch.float32)[None, None], size=(32, 96), mode="bilinear",
                        align_corners=False)[0, 0]
    assert torch.allclose(x, (ref / 255 - 0.5) / 0.5)


def test_patches_are_row_major():
    x = torch.arange(16 * 32, dtype=torch.float32).reshape(16, 32)
    patches, grid = patchify(x, 8)
    assert grid == (2, 4)
    assert torch.equal(patches[1], x[:8, 8:16].reshape(-1))
    assert torch.equal(patches[4], x[8:16, :8].reshape(-1))


def test_token_cap_takes_units_off_the_longer_side():
    W, H = target_size(1000, 500, {**IMAGE, "max_image_tokens": 10})
    assert (W // 16) * (H // 16) <= 10 and W >= H
