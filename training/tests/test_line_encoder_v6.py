"""The PyTorch reference of PP-OCRv6 small's recogniser against the original ONNX graph run by onnxruntime:
features within 1e-4 of their scale, the same CTC readout, and the structure read from the graph."""
import importlib.util
import os

import pytest
import torch
from line_golden import check_golden, close

from saccade.line_encoder import ctc_greedy, line_pixels
from saccade.line_encoder_v6 import LineEncoderV6
from saccade.ppocr_v6_onnx import read_graph
from saccade.rapidocr_package import rec_onnx

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "line_encoder_v6.npz")
ONNX = rec_onnx()
needs_package = pytest.mark.skipif(ONNX is None, reason="RapidOCR's PP-OCRv6 is not installed (npm run setup:rapidocr)")


@pytest.fixture(scope="module")
def converted():
    config, state, charset = read_graph(ONNX)
    model = LineEncoderV6(config)
    model.load_state_dict(state)
    return model.eval(), charset




@needs_package
def test_converted_structure_is_pp_ocrv6_small(converted):
    model, charset = converted
    config = model.config
    assert config["num_classes"] == 18710 == len(charset) and charset[0] == "<blank>" and charset[-1] == " "
    assert config["stem"] == {"mid": 48, "out": 96} and config["pool"] == [3, 2]
    assert [b["out"] for b in config["blocks"]][-1] == 384 and sum(bool(b["se"]) for b in config["blocks"]) == 5
    assert [b["stride"] for b in config["blocks"]].count([2, 1]) == 2
    assert config["neck"] == {"dim": 120, "kernel": 7, "depth": 2, "heads": 8, "mlp_ratio": 2}
    assert sum(p.numel() for p in model.parameters()) == 5_266_550
    # It reads Chinese, Japanese and the accents of Latin-script languages, which PP-OCRv4's dictionary lacks.
    assert {"中", "あ", "カ", "ő", "ł", "ç", "€"} <= set(charset)


@needs_package
def test_matches_the_committed_onnxruntime_golden(converted):
    model, _ = converted
    check_golden(model, GOLDEN)


@needs_package
@pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None,
                    reason="onnxruntime is not installed (pip install onnxruntime); the golden test covers parity")
def test_matches_onnxruntime_on_generated_lines(converted):
    from saccade.ppocr_v6_onnx import reference_outputs
    from saccade.synth import generate_region

    model, charset = converted
    for seed in range(900100, 900110):
        pixels = line_pixels(generate_region(seed, kind="text").image)
        ref = reference_outputs(ONNX, pixels.numpy())
        with torch.no_grad():
            out = model(pixels)
        assert close(out["backbone"].numpy(), ref["backbone"])
        assert close(out["neck"].numpy(), ref["neck"])
        assert ctc_greedy(out["ctc_logits"][0], charset) == ctc_greedy(torch.from_numpy(ref["probs"][0]), charset)
