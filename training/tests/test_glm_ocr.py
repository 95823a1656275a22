"""GLM-OCR's reference side: the tiny checkpoint, our MTP reference and the goldens regenerate as committed.

Needs transformers (training/glm_ocr/requirements.txt, the training venv); CI's Debian python3 has none.
"""
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

pytest.importorskip("transformers", reason="GLM-OCR's reference needs transformers "
                                           "(pip install -r training/glm_ocr/requirements.txt)")

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "glm_ocr")
GOLDEN = os.path.join(HERE, "..", "..", "native", "test", "golden", "glm_ocr")
TINY = os.path.join(GOLDEN, "tiny")
sys.path.insert(0, SCRIPTS)

from reference_mtp import MtpLayer, TextDecoderLayer, read_folder_tensors  # noqa: E402


def run_script(name, *args):
    subprocess.run([sys.executable, os.path.join(SCRIPTS, name), *args], check=True,
                   env={**os.environ, "OMP_NUM_THREADS": "1"}, capture_output=True)


def same_json(a, b, path=""):
    """Equal, floats to 1e-6 relative (a different BLAS may round the recorded checks differently)."""
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            same_json(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            same_json(x, y, f"{path}[{i}]")
    elif isinstance(a, float):
        assert math.isclose(a, b, rel_tol=1e-6), path
    else:
        assert a == b, path


def test_the_mtp_layer_is_read_under_the_real_naming():
    mtp = MtpLayer(TINY)
    h = mtp.cfg["hidden_size"]
    assert mtp.w["eh_proj.weight"].shape == (h, 2 * h)
    trunk = read_folder_tensors(TINY, "")
    # The shared head and embedding are saved copies of the trunk's, as in the real checkpoint.
    assert torch.equal(mtp.w["shared_head.head.weight"], trunk["lm_head.weight"])
    assert torch.equal(mtp.w["embed_tokens.weight"], trunk["model.language_model.embed_tokens.weight"])


def test_our_decoder_layer_matches_transformers_incrementally():
    from transformers import GlmOcrForConditionalGeneration

    model = GlmOcrForConditionalGeneration.from_pretrained(TINY, dtype=torch.float32,
                                                           attn_implementation="eager").eval()
    ours = TextDecoderLayer(read_folder_tensors(TINY, "model.language_model.layers.1."), MtpLayer(TINY).cfg)
    x = torch.randn(1, 9, model.config.text_config.hidden_size, generator=torch.Generator().manual_seed(0))
    # An image block (t fixed, h and w varying) between text rows, as get_rope_index lays it out.
    pos = torch.tensor([[0, 1, 2, 2, 2, 2, 4, 5, 6], [0, 1, 2, 2, 3, 3, 4, 5, 6], [0, 1, 2, 3, 2, 3, 4, 5, 6]])
    cos, sin = model.model.language_model.rotary_emb(x, pos[:, None, :])
    causal = torch.full((9, 9), float("-inf")).triu(1)[None, None]
    with torch.no_grad():
        want = model.model.language_model.layers[1](x, position_embeddings=(cos, sin), attention_mask=causal)[0]
        got = torch.cat([ours(x[0, :5], pos[:, :5]), ours(x[0, 5:], pos[:, 5:])])  # through its KV cache
    assert (got - want).abs().max() < 1e-5


def test_greedy_goldens_are_what_generate_produces():
    from PIL import Image
    from transformers import GlmOcrForConditionalGeneration
    from make_goldens import TASKS, images, load_processor

    model = GlmOcrForConditionalGeneration.from_pretrained(TINY, dtype=torch.float32,
                                                           attn_implementation="eager").eval()
    with open(os.path.join(GOLDEN, "index.json")) as f:
        case = json.load(f)["cases"]["tall"]["tasks"]["table"]
    image = Image.fromarray(images()["tall"])
    messages = [{"role": "user", "content": [{"type": "image", "image": image},
                                             {"type": "text", "text": TASKS["table"]}]}]
    inputs = load_processor(TINY).apply_chat_template(messages, tokenize=True, add_generation_prompt=True,
                                                      return_dict=True, return_tensors="pt")
    assert inputs["input_ids"][0].tolist() == case["input_ids"]
    config = model.generation_config
    config.eos_token_id = None  # the goldens never stop at EOS
    out = model.generate(**inputs, generation_config=config, max_new_tokens=len(case["greedy_ids"]))
    assert out[0, len(case["input_ids"]):].tolist() == case["greedy_ids"]


def test_the_goldens_regenerate_from_the_committed_checkpoint(tmp_path):
    run_script("make_goldens.py", str(tmp_path), "--model-dir", TINY)
    with open(os.path.join(GOLDEN, "index.json")) as f:
        committed = json.load(f)
    with open(tmp_path / "index.json") as f:
        fresh = json.load(f)
    committed.pop("model_dir"), fresh.pop("model_dir")
    same_json(fresh, committed)
    for name in os.listdir(tmp_path):
        if name.endswith(".f32"):
            a, b = np.fromfile(tmp_path / name, "<f4"), np.fromfile(os.path.join(GOLDEN, name), "<f4")
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5, err_msg=name)
        elif name.endswith(".u8"):
            assert (tmp_path / name).read_bytes() == open(os.path.join(GOLDEN, name), "rb").read(), name


def test_the_tiny_checkpoint_regenerates(tmp_path):
    run_script("make_tiny.py", str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == sorted(os.listdir(TINY))
    for name in os.listdir(TINY):
        fresh, committed = (tmp_path / name).read_bytes(), open(os.path.join(TINY, name), "rb").read()
        if name in ("config.json", "generation_config.json"):  # they name the transformers that wrote them
            fresh, committed = (json.loads(x) for x in (fresh, committed))
            for d in (fresh, committed):
                d.pop("transformers_version", None)
        assert fresh == committed, name
