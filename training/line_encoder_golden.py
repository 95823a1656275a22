"""Write the line encoders' parity goldens: onnxruntime's outputs of the original PP-OCRv4 and PP-OCRv6 graphs on
a few generated lines (training/tests/test_line_encoder.py and test_line_encoder_v6.py check the PyTorch
references against them where onnxruntime is not installed; where it is, the tests also run onnxruntime itself
on more lines).

    /usr/bin/python3 line_encoder_golden.py   # needs onnxruntime (pip) and .venv-rapidocr (npm run setup:rapidocr)
"""
import os

import numpy as np

from saccade import ppocr_onnx, ppocr_v6_onnx
from saccade.line_encoder import line_pixels
from saccade.line_reader import ONNX_PATH
from saccade.rapidocr_package import rec_onnx
from saccade.synth import generate_region

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "tests", "golden")
SEEDS = (900001, 900004, 900011)  # generated text lines, outside the training shards' seeds


def write(out, onnx_path, reference_outputs):
    arrays = {}
    for i, seed in enumerate(SEEDS):
        image = generate_region(seed, kind="text").image
        ref = reference_outputs(onnx_path, line_pixels(image).numpy())
        arrays[f"image{i}"] = image
        arrays[f"backbone{i}"] = ref["backbone"][0]
        arrays[f"neck{i}"] = ref["neck"][0]
        arrays[f"best{i}"] = ref["probs"][0].argmax(-1)
        arrays[f"best_prob{i}"] = ref["probs"][0].max(-1)
    os.makedirs(GOLDEN, exist_ok=True)
    np.savez_compressed(out, **arrays)
    print(out, os.path.getsize(out), "bytes")


def main():
    write(os.path.join(GOLDEN, "line_encoder.npz"), ONNX_PATH, ppocr_onnx.reference_outputs)
    v6 = rec_onnx()
    if v6 is None:
        raise SystemExit("PP-OCRv6's recogniser is not installed: run 'npm run setup:rapidocr'")
    write(os.path.join(GOLDEN, "line_encoder_v6.npz"), v6, ppocr_v6_onnx.reference_outputs)


if __name__ == "__main__":
    main()
