"""Writes a random checkpoint folder with GLM-OCR's real shapes, for speed runs (scripts/gpu-check.sh).

Every tensor of zai-org/GLM-OCR at its real shape (docs/glm-ocr.md, sections 2 and 3), the MTP layer
included under its real naming with its shared copies byte-equal to the trunk's, bfloat16 safetensors in
shards of at most 1 GB, the real image processor limits; the tiny checkpoint's tokenizer, chat template and
special ids, with the embedding padded to the real 59,392 rows. Its speed is the real one's, its text is
noise. numpy only, so that it runs where there is no torch; ~2.6 GB at scale 1, written in about a minute.
`--scale 0.125` shrinks every width and depth (head_dim, M-RoPE sections and the vocabulary stay) for a
quick check of the same path on a CPU.

    python3 training/glm_ocr/make_full_random.py OUT_DIR [--scale 0.125]
"""
import argparse
import json
import os
import shutil

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TINY = os.path.join(HERE, "..", "..", "native", "test", "golden", "glm_ocr", "tiny")
VOCAB = 59392
SHARD_BYTES = 1 << 30
POOL = 1 << 22  # random values per fan-in, reused at a random offset: a page of noise costs a copy
REAL_PIXELS = {"shortest_edge": 12544, "longest_edge": 9633792}


def shapes(scale: float) -> dict:
    def width(real, unit):
        w = int(round(real * scale / unit)) * unit
        if w <= 0 or abs(w - real * scale) > 1e-6 * real:
            raise SystemExit(f"--scale {scale} does not give a whole multiple of {unit} for {real}")
        return w

    heads = max(2, int(round(16 * scale)))
    return {"hidden": width(1536, 64), "inter": width(4608, 64), "layers": max(1, int(round(16 * scale))),
            "heads": heads, "kv_heads": max(1, heads // 2), "head_dim": 128,
            "v_hidden": width(1024, 64), "v_heads": max(1, int(round(16 * scale))), "v_inter": width(4096, 64),
            "v_depth": max(1, int(round(24 * scale)))}


def config(s: dict) -> dict:
    with open(os.path.join(TINY, "config.json")) as f:
        c = json.load(f)
    c.pop("transformers_version", None)
    c["text_config"].update(hidden_size=s["hidden"], intermediate_size=s["inter"], num_hidden_layers=s["layers"],
                            num_attention_heads=s["heads"], num_key_value_heads=s["kv_heads"],
                            head_dim=s["head_dim"], vocab_size=VOCAB)
    c["text_config"]["rope_parameters"]["mrope_section"] = [16, 24, 24]
    c["vision_config"].update(depth=s["v_depth"], hidden_size=s["v_hidden"], num_heads=s["v_heads"],
                              intermediate_size=s["v_inter"], out_hidden_size=s["hidden"])
    return c


def tensors(s: dict):
    """(name, shape) in the order save_pretrained writes them, the MTP layer last."""
    H, I, D, V = s["hidden"], s["inter"], s["head_dim"], VOCAB
    vh, vi, vd = s["v_hidden"], s["v_inter"], s["v_hidden"] // s["v_heads"]
    out = [("model.visual.patch_embed.proj.weight", (vh, 3, 2, 14, 14)), ("model.visual.patch_embed.proj.bias", (vh,))]
    for i in range(s["v_depth"]):
        b = f"model.visual.blocks.{i}."
        out += [(b + "norm1.weight", (vh,)), (b + "norm2.weight", (vh,)),
                (b + "attn.qkv.weight", (3 * vh, vh)), (b + "attn.qkv.bias", (3 * vh,)),
                (b + "attn.q_norm.weight", (vd,)), (b + "attn.k_norm.weight", (vd,)),
                (b + "attn.proj.weight", (vh, vh)), (b + "attn.proj.bias", (vh,))]
        for m in ("gate_proj", "up_proj"):
            out += [(b + f"mlp.{m}.weight", (vi, vh)), (b + f"mlp.{m}.bias", (vi,))]
        out += [(b + "mlp.down_proj.weight", (vh, vi)), (b + "mlp.down_proj.bias", (vh,))]
    merger_inter = 3 * H  # out_hidden_size * in_channels (docs/glm-ocr.md, section 2)
    out += [("model.visual.post_layernorm.weight", (vh,)), ("model.visual.downsample.weight", (H, vh, 2, 2)),
            ("model.visual.downsample.bias", (H,)), ("model.visual.merger.proj.weight", (H, H)),
            ("model.visual.merger.post_projection_norm.weight", (H,)),
            ("model.visual.merger.post_projection_norm.bias", (H,)),
            ("model.visual.merger.gate_proj.weight", (merger_inter, H)),
            ("model.visual.merger.up_proj.weight", (merger_inter, H)),
            ("model.visual.merger.down_proj.weight", (H, merger_inter))]
    out.append(("model.language_model.embed_tokens.weight", (V, H)))

    def layer(p):
        return [(p + "input_layernorm.weight", (H,)), (p + "self_attn.q_proj.weight", (s["heads"] * D, H)),
                (p + "self_attn.k_proj.weight", (s["kv_heads"] * D, H)),
                (p + "self_attn.v_proj.weight", (s["kv_heads"] * D, H)),
                (p + "self_attn.o_proj.weight", (H, s["heads"] * D)), (p + "post_self_attn_layernorm.weight", (H,)),
                (p + "post_attention_layernorm.weight", (H,)), (p + "mlp.gate_up_proj.weight", (2 * I, H)),
                (p + "mlp.down_proj.weight", (H, I)), (p + "post_mlp_layernorm.weight", (H,))]

    for l in range(s["layers"]):
        out += layer(f"model.language_model.layers.{l}.")
    out += [("model.language_model.norm.weight", (H,)), ("lm_head.weight", (V, H))]
    mtp = f"model.language_model.layers.{s['layers']}."
    out += layer(mtp) + [(mtp + "enorm.weight", (H,)), (mtp + "hnorm.weight", (H,)),
                         (mtp + "eh_proj.weight", (H, 2 * H)), (mtp + "shared_head.norm.weight", (H,)),
                         (mtp + "shared_head.head.weight", (V, H)), (mtp + "embed_tokens.weight", (V, H))]
    return out


def bf16(x: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bits, rounded to nearest even."""
    u = x.astype(np.float32).view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


class Filler:
    """Matrices ~ N(0, 1/fan_in); 1-D norm weights ~ 1 + N(0, 0.1^2), biases ~ N(0, 0.1^2)."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.pools = {}

    def __call__(self, name: str, shape: tuple) -> np.ndarray:
        n = int(np.prod(shape))
        if len(shape) == 1:
            base = 1.0 if "norm" in name else 0.0
            return bf16(base + 0.1 * self.rng.standard_normal(n, dtype=np.float32))
        fan_in = int(np.prod(shape[1:]))
        if fan_in not in self.pools:
            self.pools[fan_in] = bf16(self.rng.standard_normal(POOL, dtype=np.float32) / np.sqrt(fan_in))
        pool = np.roll(self.pools[fan_in], int(self.rng.integers(POOL)))
        return np.resize(pool, n)


def write_shards(out_dir: str, named: list) -> None:
    """safetensors files (8-byte header length, JSON header, raw little-endian data) and their index."""
    shards, current, size = [], [], 0
    for name, shape, data in named:
        if current and size + data.nbytes > SHARD_BYTES:
            shards.append(current)
            current, size = [], 0
        current.append((name, shape, data))
        size += data.nbytes
    shards.append(current)
    weight_map, total = {}, 0
    for i, shard in enumerate(shards):
        file = f"model-{i + 1:05d}-of-{len(shards):05d}.safetensors"
        header, offset = {"__metadata__": {"format": "pt"}}, 0
        for name, shape, data in shard:
            header[name] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [offset, offset + data.nbytes]}
            offset += data.nbytes
            weight_map[name] = file
        raw = json.dumps(header, separators=(",", ":")).encode()
        raw += b" " * (-len(raw) % 8)
        with open(os.path.join(out_dir, file), "wb") as f:
            f.write(len(raw).to_bytes(8, "little"))
            f.write(raw)
            for _, _, data in shard:
                f.write(data.astype("<u2").tobytes())
        total += offset
    index = {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}
    with open(os.path.join(out_dir, "model.safetensors.index.json"), "w") as f:
        json.dump(index, f, indent=2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--scale", type=float, default=1.0, help="width and depth factor (1: the real shapes)")
    ap.add_argument("--seed", type=int, default=23)
    args = ap.parse_args()
    s = shapes(args.scale)
    os.makedirs(args.out_dir, exist_ok=True)
    fill, made, named = Filler(args.seed), {}, []
    mtp = f"model.language_model.layers.{s['layers']}."
    shared = {mtp + "shared_head.head.weight": "lm_head.weight",
              mtp + "embed_tokens.weight": "model.language_model.embed_tokens.weight"}
    for name, shape in tensors(s):
        made[name] = made[shared[name]] if name in shared else fill(name, shape)
        named.append((name, shape, made[name]))
    write_shards(args.out_dir, named)
    with open(os.path.join(args.out_dir, "config.json"), "w") as f:
        json.dump(config(s), f, indent=2)
    for name in ("tokenizer.json", "tokenizer_config.json", "generation_config.json"):
        shutil.copy(os.path.join(TINY, name), os.path.join(args.out_dir, name))
    with open(os.path.join(TINY, "preprocessor_config.json")) as f:
        pre = json.load(f)
    pre["size"] = REAL_PIXELS
    with open(os.path.join(args.out_dir, "preprocessor_config.json"), "w") as f:
        json.dump(pre, f, indent=2)
    params = sum(int(np.prod(shape)) for _, shape, _ in named)
    print(f"{args.out_dir}: {params / 1e9:.2f} B parameters (MTP copies included), scale {args.scale}")


if __name__ == "__main__":
    main()
