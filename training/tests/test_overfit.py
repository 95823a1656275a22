"""A tiny model memorises one batch in both modes: AR decoding and one-shot drafting reproduce the targets."""
import torch

from saccade.data import collate_with_images, encode_region
from saccade.decode import Region, diffusion, greedy_ar, self_spec
from saccade.loss import batch_loss
from saccade.model import SaccadeOCR
from saccade.preprocess import preprocess
from saccade.tokenizer import Tokenizer
from saccade.vocab import EOS, PROMPTS
from tiny import striped_image, tiny_config

TARGETS = ["cat 12", "dog: 7."]


def test_tiny_model_overfits_one_batch_in_both_modes():
    torch.manual_seed(0)
    config = tiny_config()
    model = SaccadeOCR(config)
    tok = Tokenizer()
    images = [striped_image(i) for i in range(len(TARGETS))]
    g = torch.Generator().manual_seed(0)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for step in range(250):
        # Fresh offsets and masks every step, as in training; the images and targets stay fixed.
        batch = collate_with_images([encode_region(im, t, "text", config, tok, g)
                                     for im, t in zip(images, TARGETS)])
        loss, ar, diff = batch_loss(model, batch)[:3]
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert ar.item() < 0.05 and diff.item() < 0.05, (ar.item(), diff.item())
    model.eval()
    B = config["diffusion_block_size"]
    for image, target in zip(images, TARGETS):
        pixels = preprocess(image, config["image"])
        expected = tok.encode(target) + [EOS]
        assert greedy_ar(Region(model, pixels, PROMPTS["text"])).ids == expected
        spec = self_spec(Region(model, pixels, PROMPTS["text"]), block_size=B)
        assert spec.ids == expected and spec.forwards == 2  # the first block's draft, then its verify
        pure = diffusion(Region(model, pixels, PROMPTS["text"]), tau=0.9, block_size=B)
        assert pure.ids == expected
