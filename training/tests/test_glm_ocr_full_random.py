"""The full-size random GLM-OCR folder of the GPU check (training/glm_ocr/make_full_random.py) has the real
checkpoint's tensors: checked against the model transformers builds from its config, on the meta device.

Needs transformers (training/glm_ocr/requirements.txt, the training venv); CI's Debian python3 has none.
"""
import os
import sys

import pytest
import torch

pytest.importorskip("transformers", reason="GLM-OCR's reference needs transformers "
                                           "(pip install -r training/glm_ocr/requirements.txt)")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "glm_ocr"))
import make_full_random  # noqa: E402


@pytest.mark.parametrize("scale", [1.0, 0.125])
def test_the_tensors_are_what_transformers_builds_plus_the_mtp_layer(scale):
    from transformers import GlmOcrConfig, GlmOcrForConditionalGeneration

    s = make_full_random.shapes(scale)
    config = make_full_random.config(s)
    with torch.device("meta"):
        model = GlmOcrForConditionalGeneration(GlmOcrConfig(**config))
    want = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    got = dict(make_full_random.tensors(s))
    mtp = f"model.language_model.layers.{s['layers']}."
    assert {k: v for k, v in got.items() if not k.startswith(mtp)} == want
    layer0 = {k[len("model.language_model.layers.0."):] for k in want if k.startswith("model.language_model.layers.0.")}
    extra = {"enorm.weight", "hnorm.weight", "eh_proj.weight", "shared_head.norm.weight", "shared_head.head.weight",
             "embed_tokens.weight"}
    assert {k[len(mtp):] for k in got if k.startswith(mtp)} == layer0 | extra
    if scale == 1.0:  # docs/glm-ocr.md, section 2
        t, v = config["text_config"], config["vision_config"]
        assert (t["hidden_size"], t["intermediate_size"], t["num_hidden_layers"], t["num_attention_heads"],
                t["num_key_value_heads"], t["head_dim"], t["vocab_size"]) == (1536, 4608, 16, 16, 8, 128, 59392)
        assert (v["depth"], v["hidden_size"], v["num_heads"], v["intermediate_size"]) == (24, 1024, 16, 4096)
        assert got["model.visual.merger.gate_proj.weight"] == (4608, 1536)
