"""Our PyTorch reference of GLM-OCR's MTP layer, which transformers skips on load.

The structure is vLLM's (vllm/model_executor/models/glm_ocr_mtp.py, GlmOcrMultiTokenPredictorLayer, and
SharedHead in glm4_moe_lite_mtp.py), written out here in plain tensor code; docs/glm-ocr.md, "The MTP
layer", states it with shapes. Row i of the layer reads the trunk's final (normed) hidden state of row i
and the input embedding of row i + 1, and predicts the token of row i + 2:

    e = enorm(embedding), zeroed on the sequence's first row (position 0)
    h = hnorm(previous hidden)
    x = eh_proj([e ; h])                      # [T, 2H] -> [T, H], no bias
    y = decoder layer (the trunk's layer type, its own KV cache, M-RoPE at row i's positions)
    logits = shared_head.head(shared_head.norm(y))

A chained draft feeds y back as the previous hidden and the embedding of its own argmax.
"""
import json
import os

import torch
from safetensors.torch import load_file


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def mrope_cos_sin(positions: torch.Tensor, rotary_dim: int, theta: float, sections: list):
    """positions [3, T] (t, h, w) -> cos, sin [T, rotary_dim]: frequency j takes the axis of its section
    (t for the first sections[0], then h, then w) and each angle covers the adjacent pair (2j, 2j + 1)."""
    inv_freq = 1.0 / theta ** (torch.arange(0, rotary_dim, 2, dtype=torch.float32) / rotary_dim)
    axis = torch.repeat_interleave(torch.arange(3), torch.tensor(sections))  # [rotary_dim / 2]
    angles = positions[axis].T.float() * inv_freq  # [T, rotary_dim / 2], position of axis[j] per frequency
    return angles.cos().repeat_interleave(2, -1), angles.sin().repeat_interleave(2, -1)


def apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """x [heads, T, head_dim]; rotates the pairs (x[2j], x[2j+1]) of the first cos.shape[-1] dims."""
    n = cos.shape[-1]
    rot, rest = x[..., :n], x[..., n:]
    even, odd = rot[..., 0::2], rot[..., 1::2]
    turned = torch.stack((-odd, even), dim=-1).flatten(-2)  # (x0, x1) -> (-x1, x0)
    return torch.cat([rot * cos + turned * sin, rest], dim=-1)


class TextDecoderLayer:
    """One GLM-OCR text decoder layer (GlmOcrTextDecoderLayer's math) with its own growing KV cache."""

    def __init__(self, w: dict, cfg: dict):
        self.w, self.cfg = w, cfg
        rope = cfg["rope_parameters"]
        self.head_dim = cfg["head_dim"]
        self.rotary_dim = int(self.head_dim * rope.get("partial_rotary_factor", 1.0))
        self.keys = self.values = None

    def reset(self) -> None:
        self.keys = self.values = None

    def __call__(self, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        w, cfg, eps, d = self.w, self.cfg, self.cfg["rms_norm_eps"], self.head_dim
        n_q, n_kv, t = cfg["num_attention_heads"], cfg["num_key_value_heads"], x.shape[0]

        a = rms_norm(x, w["input_layernorm.weight"], eps)
        q = (a @ w["self_attn.q_proj.weight"].T).view(t, n_q, d).transpose(0, 1)  # [n_q, T, d]
        k = (a @ w["self_attn.k_proj.weight"].T).view(t, n_kv, d).transpose(0, 1)
        v = (a @ w["self_attn.v_proj.weight"].T).view(t, n_kv, d).transpose(0, 1)
        rope = cfg["rope_parameters"]
        cos, sin = mrope_cos_sin(positions, self.rotary_dim, rope["rope_theta"], rope["mrope_section"])
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        self.keys = k if self.keys is None else torch.cat([self.keys, k], dim=1)
        self.values = v if self.values is None else torch.cat([self.values, v], dim=1)

        # Grouped-query attention: query head j reads KV head j // (n_q / n_kv); causal over the cache.
        group = n_q // n_kv
        keys, values = self.keys.repeat_interleave(group, 0), self.values.repeat_interleave(group, 0)
        past = keys.shape[1] - t
        scores = q @ keys.transpose(1, 2) * d ** -0.5  # [n_q, T, past + T]
        future = torch.arange(keys.shape[1])[None, :] > (past + torch.arange(t))[:, None]
        scores = scores.masked_fill(future, float("-inf"))
        attn = (scores.softmax(-1) @ values).transpose(0, 1).reshape(t, n_q * d)
        x = x + rms_norm(attn @ w["self_attn.o_proj.weight"].T, w["post_self_attn_layernorm.weight"], eps)

        m = rms_norm(x, w["post_attention_layernorm.weight"], eps)
        gate, up = (m @ w["mlp.gate_up_proj.weight"].T).chunk(2, dim=-1)
        m = (torch.nn.functional.silu(gate) * up) @ w["mlp.down_proj.weight"].T
        return x + rms_norm(m, w["post_mlp_layernorm.weight"], eps)


def read_folder_tensors(folder: str, prefix: str) -> dict:
    """The float32 tensors whose names start with prefix, from a single or sharded safetensors folder."""
    index = os.path.join(folder, "model.safetensors.index.json")
    if os.path.exists(index):
        with open(index) as f:
            files = sorted(set(json.load(f)["weight_map"].values()))
    else:
        files = ["model.safetensors"]
    out = {}
    for name in files:
        for key, t in load_file(os.path.join(folder, name)).items():
            if key.startswith(prefix):
                out[key[len(prefix):]] = t.float()
    return out


class MtpLayer:
    """The checkpoint's MTP layer, model.language_model.layers.{num_hidden_layers}.*."""

    def __init__(self, folder: str):
        with open(os.path.join(folder, "config.json")) as f:
            self.cfg = json.load(f)["text_config"]
        prefix = f"model.language_model.layers.{self.cfg['num_hidden_layers']}."
        self.w = read_folder_tensors(folder, prefix)
        if not self.w:
            raise ValueError(f"{folder} has no MTP layer ({prefix}*)")
        self.block = TextDecoderLayer(self.w, self.cfg)

    def reset(self) -> None:
        self.block.reset()

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        return self.w["embed_tokens.weight"][ids]

    def __call__(self, previous_hidden: torch.Tensor, next_embeds: torch.Tensor, positions: torch.Tensor):
        """previous_hidden, next_embeds [T, H]; positions [3, T] of the previous hidden's rows.
        Returns (the layer's output [T, H], fed back when chaining; logits [T, V])."""
        eps = self.cfg["rms_norm_eps"]
        first_row = (positions == 0).all(0)
        e = rms_norm(next_embeds.masked_fill(first_row[:, None], 0.0), self.w["enorm.weight"], eps)
        h = rms_norm(previous_hidden, self.w["hnorm.weight"], eps)
        y = self.block(torch.cat([e, h], dim=-1) @ self.w["eh_proj.weight"].T, positions)
        logits = rms_norm(y, self.w["shared_head.norm.weight"], eps) @ self.w["shared_head.head.weight"].T
        return y, logits
