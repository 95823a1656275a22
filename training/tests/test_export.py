import json

import pytest
import torch

from saccade.checkpoint import export, load
from saccade.config import load_config
from saccade.decode import Region
from saccade.model import SaccadeOCR
from saccade.preprocess import preprocess
from saccade.safetensors_io import load_file
from saccade.tokenizer import Tokenizer
from tiny import striped_image, tiny_config


@pytest.mark.parametrize("stem", [None, [4, 4, 8, 8]])
def test_export_round_trip(tmp_path, stem):
    torch.manual_seed(0)
    config = tiny_config()
    if stem:
        config["vision_config"]["stem_channels"] = stem
    model = SaccadeOCR(config).eval()
    export(model, tmp_path)
    tensors = load_file(tmp_path / "model.safetensors")
    assert set(tensors) == set(model.state_dict())
    assert all(t.dtype == torch.float16 for t in tensors.values())
    assert tensors["vision.layers.0.attn.qkv.weight"].shape == (96, 32)
    assert tensors["model.layers.1.self_attn.k_proj.weight"].shape == (32, 64)
    back = load(tmp_path)
    for name, t in model.state_dict().items():
        assert torch.equal(back.state_dict()[name], t.half().float()), name
    pixels = preprocess(striped_image(1), model.config["image"])
    with torch.no_grad():
        a = Region(model, pixels, 5).prefill_logits
        b = Region(back, pixels, 5).prefill_logits
    assert torch.allclose(a, b, atol=5e-3)
    assert json.load(open(tmp_path / "config.json"))["torch_dtype"] == "float16"
    tok = Tokenizer.load(tmp_path / "tokenizer.json")
    text = 'x<td colspan="2">\\frac{a}{b}—ok'
    assert tok.decode(tok.encode(text)) == text
    assert tok.encode("<td>") == [Tokenizer().vocab["<td>"]]


def test_missing_config_key_is_named(tmp_path):
    config = tiny_config()
    del config["text_config"]["head_dim"]
    (tmp_path / "config.json").write_text(json.dumps(config))
    with pytest.raises(KeyError, match="text_config.head_dim"):
        load_config(tmp_path / "config.json")
