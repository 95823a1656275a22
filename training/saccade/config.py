"""The checkpoint's config.json: defaults for training, and loading with the contract's required keys."""
import copy
import json

from .vocab import ALL_TOKENS, BOS, EOS, IMG, MASK, PAD, PROMPTS

VOCAB_SIZE = (len(ALL_TOKENS) + 63) // 64 * 64

DEFAULT_CONFIG = {
    "model_type": "saccade_ocr",
    "format_version": 2,
    "torch_dtype": "float16",
    "vision_config": {
        "patch_size": 16, "in_channels": 1, "hidden_size": 128, "num_layers": 3,
        "num_heads": 4, "intermediate_size": 384, "merge_size": 2,
        "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
    },
    "text_config": {
        "hidden_size": 256, "num_layers": 4, "num_attention_heads": 8, "num_key_value_heads": 4,
        "head_dim": 32, "intermediate_size": 768, "vocab_size": VOCAB_SIZE, "rms_norm_eps": 1e-6,
        "rope_theta": 10000.0, "mrope_section": [4, 6, 6], "max_position_embeddings": 4096,
    },
    "image": {"max_image_tokens": 768, "min_height": 32, "unit": 32, "mean": 0.5, "std": 0.5},
    "bos_token_id": BOS, "eos_token_id": EOS, "pad_token_id": PAD, "mask_token_id": MASK,
    "image_token_id": IMG, "prompt_token_ids": dict(PROMPTS),
    "diffusion_block_size": 32,
}

_REQUIRED = {
    "vision_config": ["patch_size", "in_channels", "hidden_size", "num_layers", "num_heads",
                      "intermediate_size", "merge_size", "rms_norm_eps", "rope_theta"],
    "text_config": ["hidden_size", "num_layers", "num_attention_heads", "num_key_value_heads", "head_dim",
                    "intermediate_size", "vocab_size", "rms_norm_eps", "rope_theta", "mrope_section",
                    "max_position_embeddings"],
    "image": ["max_image_tokens", "min_height", "unit", "mean", "std"],
}
_REQUIRED_TOP = ["bos_token_id", "eos_token_id", "pad_token_id", "mask_token_id", "image_token_id",
                 "prompt_token_ids", "diffusion_block_size"]


def default_config(**text_overrides):
    config = copy.deepcopy(DEFAULT_CONFIG)
    config["text_config"].update(text_overrides)
    return config


_REQUIRED_LINE = {
    "vision_config": ["type", "encoder", "features"],
    "text_config": _REQUIRED["text_config"],
    "image": ["height", "column", "max_width", "mean", "std"],
}


def validate(config):
    required = _REQUIRED_LINE if config.get("format_version") == 4 else _REQUIRED
    if "reading_prior" in config:
        if config.get("format_version") != 4:
            raise ValueError("config.json: reading_prior: only a line model has a CTC reading to weigh")
        weight = config["reading_prior"].get("weight")
        if not isinstance(weight, (int, float)) or not 0 <= weight <= 0.99:
            raise ValueError("config.json: reading_prior.weight must be a number in [0, 0.99]")
    for key in _REQUIRED_TOP:
        if key not in config:
            raise KeyError(f"config.json: missing required key '{key}'")
    for section, keys in required.items():
        if section not in config:
            raise KeyError(f"config.json: missing required key '{section}'")
        for key in keys:
            if key not in config[section]:
                raise KeyError(f"config.json: missing required key '{section}.{key}'")
    text = config["text_config"]
    if sum(text["mrope_section"]) * 2 != text["head_dim"]:
        raise ValueError("config.json: mrope_section must sum to head_dim / 2")
    return config


def load_config(path):
    with open(path) as f:
        return validate(json.load(f))
