"""Export to the contract's folder layout (fp16 safetensors + config + tokenizer) and load it back."""
import json
import os

import torch
from .safetensors_io import load_file, save_file

from .config import load_config, validate
from .model import SaccadeOCR
from .tokenizer import Tokenizer


def export(model, out_dir, dtype=torch.float16):
    os.makedirs(out_dir, exist_ok=True)
    config = dict(model.config)
    config["torch_dtype"] = {torch.float16: "float16", torch.bfloat16: "bfloat16"}[dtype]
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    tensors = {name: t.detach().to(dtype).contiguous() for name, t in model.state_dict().items()}
    save_file(tensors, os.path.join(out_dir, "model.safetensors"), metadata={"format": "pt"})
    Tokenizer().save(os.path.join(out_dir, "tokenizer.json"))


def load(model_dir, dtype=torch.float32):
    config = validate(load_config(os.path.join(model_dir, "config.json")))
    model = SaccadeOCR(config)
    state = load_file(os.path.join(model_dir, "model.safetensors"))
    model.load_state_dict({k: v.to(dtype) for k, v in state.items()})
    return model.to(dtype).eval()
