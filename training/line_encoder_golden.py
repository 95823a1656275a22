"""Write the line encoder's parity golden: onnxruntime's outputs of the original PP-OCRv4 graph on a few
generated lines (training/tests/test_line_encoder.py checks the PyTorch reference against it where
onnxruntime is not installed; where it is, the test also runs onnxruntime itself on more lines).

    /usr/bin/python3 line_encoder_golden.py   # needs onnxruntime (pip) besides the usual packages
"""
import os

import numpy as np

from saccade.line_encoder import line_pixels
from saccade.line_reader import ONNX_PATH
from saccade.ppocr_onnx import reference_outputs
from saccade.synth import generate_region

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "tests", "golden", "line_encoder.npz")
SEEDS = (900001, 900004, 900011)  # generated text lines, outside the training shards' seeds


def main():
    arrays = {}
    for i, seed in enumerate(SEEDS):
        image = generate_region(seed, kind="text").image
        ref = reference_outputs(ONNX_PATH, line_pixels(image).numpy())
        arrays[f"image{i}"] = image
        arrays[f"backbone{i}"] = ref["backbone"][0]
        arrays[f"neck{i}"] = ref["neck"][0]
        arrays[f"best{i}"] = ref["probs"][0].argmax(-1)
        arrays[f"best_prob{i}"] = ref["probs"][0].max(-1)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    np.savez_compressed(OUT, **arrays)
    print(OUT, os.path.getsize(OUT), "bytes")


if __name__ == "__main__":
    main()
