"""A tiny config and hand-made regions so tests run in seconds without the data generator."""
import numpy as np

from saccade.config import default_config


def tiny_config():
    config = default_config(hidden_size=64, num_layers=2, num_attention_heads=4, num_key_value_heads=2,
                            head_dim=16, intermediate_size=128, mrope_section=[2, 3, 3])
    config["vision_config"].update(hidden_size=32, num_layers=1, num_heads=2, intermediate_size=64)
    config["diffusion_block_size"] = 8
    return config


def striped_image(seed, h=32, w=96):
    rng = np.random.default_rng(seed)
    return (rng.random((h, w)) * 255).astype(np.uint8)
