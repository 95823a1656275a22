"""Export to the contract's folder layout (fp16 safetensors + config + tokenizer) and load it back."""
import json
import os

import torch
from .safetensors_io import load_file, save_file

from .config import load_config, validate
from .line_model import LineOCR, charset_codes, encoder_charset
from .model import SaccadeOCR
from .tokenizer import Tokenizer


def export(model, out_dir, dtype=torch.float16):
    """Weights in `dtype`; a line model's file is float32, since the pretrained encoder loses readings in
    fp16, with everything we trained rounded through `dtype` (the engine keeps such weights in half)."""
    os.makedirs(out_dir, exist_ok=True)
    config = dict(model.config)
    line = config.get("format_version") == 4
    config["torch_dtype"] = "float32" if line else {torch.float16: "float16", torch.bfloat16: "bfloat16"}[dtype]
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(config, f, indent=2)

    def stored(name, t):
        t = t.detach()
        if not line:
            return t.to(dtype).contiguous()
        kept = name.startswith("encoder.") or name in ("ctc_map", "encoder_charset")  # pretrained, and ids
        return (t.float() if kept else t.to(dtype).float()).contiguous()
    tensors = {name: stored(name, t) for name, t in model.state_dict().items()}
    save_file(tensors, os.path.join(out_dir, "model.safetensors"), metadata={"format": "pt"})
    Tokenizer().save(os.path.join(out_dir, "tokenizer.json"))


def load(model_dir, dtype=torch.float32):
    config = validate(load_config(os.path.join(model_dir, "config.json")))
    model = LineOCR(config) if config.get("format_version") == 4 else SaccadeOCR(config)
    state = load_file(os.path.join(model_dir, "model.safetensors"))
    load_state(model, {k: v.to(dtype) for k, v in state.items()})
    return model.to(dtype).eval()


def load_state(model, state):
    """model.load_state_dict(state); a line model's weights from before encoder_charset was stored take the
    charset of the encoder their config names."""
    if isinstance(model, LineOCR) and "encoder_charset" not in state:
        state = {**state, "encoder_charset": charset_codes(encoder_charset(model.config["vision_config"]["encoder"]))}
    model.load_state_dict(state)
