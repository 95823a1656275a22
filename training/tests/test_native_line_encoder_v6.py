"""The native engine's PP-OCRv6 encoder against the PyTorch reference: a line model on the converted encoder (with a
small random decoder, the encoder being what is compared) exported, its goldens written by golden.py, and the
engine's golden test run on them (native/test/golden_test.cc: backbone, neck and CTC logits within 1e-4 of their
largest value, the decoder's logits, and self-spec identical to AR). The reference itself is checked against
onnxruntime in test_line_encoder_v6.py."""
import os
import subprocess
import sys

import pytest
import torch

from saccade.checkpoint import export
from saccade.line_model import LineOCR, line_config, load_encoder
from saccade.rapidocr_package import rec_onnx

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS_BINARY = os.path.join(HERE, "..", "..", "native", "build", "Release", "saccade_tests")


@pytest.mark.skipif(rec_onnx() is None, reason="RapidOCR's PP-OCRv6 is not installed (npm run setup:rapidocr)")
@pytest.mark.skipif(not os.path.exists(TESTS_BINARY), reason="the native engine is not built (npm run build:native)")
def test_engine_reads_lines_as_the_reference_encoder(tmp_path):
    torch.manual_seed(0)
    encoder_config, state, charset = load_encoder("pp_ocrv6")
    config = line_config(encoder_config, ["neck", "backbone"], "reading", charset, hidden_size=64, num_layers=2,
                         num_attention_heads=2, num_key_value_heads=1, intermediate_size=128)
    model = LineOCR(config)
    model.encoder.load_state_dict(state)
    model.set_charset(charset)
    export(model.eval(), str(tmp_path / "model"))
    subprocess.run([sys.executable, os.path.join(HERE, "..", "golden.py"), str(tmp_path / "model"),
                    str(tmp_path / "golden"), "--max-new", "8"], check=True, capture_output=True)
    env = {**os.environ, "SACCADE_GOLDEN_DIR": str(tmp_path / "golden")}
    for name in ("golden_line_encoder_matches_reference", "golden_preprocessing_and_vision_match_reference",
                 "golden_greedy_tokens_match_reference_and_spec_equals_ar"):
        run = subprocess.run([TESTS_BINARY, name], env=env, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0 and "1 passed, 0 failed" in run.stdout, run.stdout + run.stderr
