"""Writes a tiny random GLM-OCR checkpoint with the real one's structure, as transformers saves it.

Every block type of zai-org/GLM-OCR is present at small widths (docs/glm-ocr.md lists the real shapes):
the ratios that an engine could wrongly hard-code are kept, namely query heads x head_dim != hidden
(4 x 32 vs 96, as 16 x 128 vs 1536), M-RoPE sections summing to head_dim / 2 (4/6/6 as 16/24/24), a
model vocabulary padded past the tokenizer's, and an MTP layer stored after the last decoder layer under
the real naming (transformers neither builds nor writes it). Weights are stored in bfloat16 like the real
checkpoint, sharded so the index is exercised.

Every parameter is drawn from a seeded normal, norm weights and biases included, so a swapped or skipped
norm changes the output; the logits are scaled up so greedy decisions are not near-ties.

    nice -n 19 /opt/t3/bin/python training/glm_ocr/make_tiny.py native/test/golden/glm_ocr/tiny
"""
import argparse
import json
import math
import os
import sys

import torch
import transformers
from safetensors.torch import load_file, save_file
from tokenizers import Tokenizer
from transformers import GlmOcrConfig, GlmOcrForConditionalGeneration

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tiny_tokenizer import ADDED_TOKENS, build_tokenizer  # noqa: E402

SEED = 23
LEARNED_VOCAB = 440  # bytes + merges of the stand-in tokenizer
VOCAB_ROUNDING = 128  # the embedding rows are the tokenizer's padded up, as the real 59,282 are to 59,392
TEXT_LAYERS = 2
MTP_PREFIX = f"model.language_model.layers.{TEXT_LAYERS}."

# min/max pixels count two frames (smart_resize multiplies by temporal_patch_size), as the real file's
# 12544 / 9633792 do; these give 4..16 merged tokens so the goldens stay small.
PREPROCESSOR = {
    "size": {"shortest_edge": 2 * 28 * 28 * 4, "longest_edge": 2 * 28 * 28 * 16},
    "do_rescale": True,
    "patch_size": 14,
    "temporal_patch_size": 2,
    "merge_size": 2,
    "image_mean": [0.48145466, 0.4578275, 0.40821073],
    "image_std": [0.26862954, 0.26130258, 0.27577711],
    "image_processor_type": "Glm46VImageProcessor",
    "processor_class": "Glm46VProcessor",
}


def tiny_config(tok: Tokenizer) -> GlmOcrConfig:
    vocab = -(-tok.get_vocab_size() // VOCAB_ROUNDING) * VOCAB_ROUNDING
    ids = {t: tok.token_to_id(t) for t in ADDED_TOKENS}
    missing = [t for t, i in ids.items() if i is None]
    if missing:
        raise SystemExit(f"the tokenizer lacks GLM-OCR's added tokens {missing}")
    eos = [ids["<|endoftext|>"], ids["<|user|>"]]
    text = dict(
        vocab_size=vocab, hidden_size=96, intermediate_size=288, num_hidden_layers=TEXT_LAYERS,
        num_attention_heads=4, num_key_value_heads=2, head_dim=32, hidden_act="silu",
        max_position_embeddings=131072, rms_norm_eps=1e-05, attention_bias=False, attention_dropout=0.0,
        rope_parameters={"rope_type": "default", "mrope_section": [4, 6, 6], "partial_rotary_factor": 1.0,
                         "rope_theta": 10000},
        num_nextn_predict_layers=1, pad_token_id=eos[0], eos_token_id=eos, tie_word_embeddings=False,
        use_cache=True, dtype="bfloat16",
    )
    vision = dict(
        depth=2, hidden_size=64, num_heads=2, intermediate_size=256, hidden_act="silu", attention_bias=True,
        patch_size=14, temporal_patch_size=2, spatial_merge_size=2, in_channels=3, out_hidden_size=96,
        rms_norm_eps=1e-05, image_size=336, hidden_dropout_prob=0.0,
    )
    return GlmOcrConfig(
        text_config=text, vision_config=vision, tie_word_embeddings=False, dtype="bfloat16",
        image_token_id=ids["<|image|>"], video_token_id=ids["<|video|>"],
        image_start_token_id=ids["<|begin_of_image|>"], image_end_token_id=ids["<|end_of_image|>"],
        video_start_token_id=ids["<|begin_of_video|>"], video_end_token_id=ids["<|end_of_video|>"],
    )


def randomize(tensors: dict, gen: torch.Generator) -> None:
    """Fills each tensor in place: matrices ~ N(0, 1/fan_in), norm weights ~ 1 + N(0, 0.1^2)."""
    for name, p in sorted(tensors.items()):
        if p.dim() == 1:
            base = 1.0 if "norm" in name else 0.0
            p.copy_(base + 0.1 * torch.randn(p.shape, generator=gen))
        else:
            fan_in = math.prod(p.shape[1:])
            scale = 4.0 if name == "lm_head.weight" else 1.0  # spreads the logits (std ~4)
            p.copy_(torch.randn(p.shape, generator=gen) * scale / math.sqrt(fan_in))


def mtp_layer(model: GlmOcrForConditionalGeneration, gen: torch.Generator) -> dict:
    """The MTP layer's tensors under the real names: a decoder layer plus enorm, hnorm, eh_proj and the
    shared head; its embed_tokens and shared_head.head are copies of the trunk's (shared parameters)."""
    text = model.config.text_config
    h = text.hidden_size
    block = {k: torch.empty_like(v) for k, v in model.model.language_model.layers[0].state_dict().items()}
    own = {"enorm.weight": torch.empty(h), "hnorm.weight": torch.empty(h), "eh_proj.weight": torch.empty(h, 2 * h),
           "shared_head.norm.weight": torch.empty(h)}
    layer = {**block, **own}
    randomize(layer, gen)
    layer["embed_tokens.weight"] = model.model.language_model.embed_tokens.weight.detach().clone()
    layer["shared_head.head.weight"] = model.lm_head.weight.detach().clone()
    return {MTP_PREFIX + k: v.to(torch.bfloat16) for k, v in layer.items()}


def add_to_last_shard(out_dir: str, extra: dict) -> None:
    index_path = os.path.join(out_dir, "model.safetensors.index.json")
    with open(index_path) as f:
        index = json.load(f)
    shard = sorted(set(index["weight_map"].values()))[-1]
    path = os.path.join(out_dir, shard)
    tensors = load_file(path)
    tensors.update(extra)
    save_file(tensors, path, metadata={"format": "pt"})
    for name, t in extra.items():
        index["weight_map"][name] = shard
        index["metadata"]["total_size"] += t.numel() * t.element_size()
        index["metadata"]["total_parameters"] += t.numel()
    index["weight_map"] = dict(sorted(index["weight_map"].items()))
    with open(index_path, "w") as f:
        json.dump(index, f, indent=2)
        f.write("\n")


def tokenizer_config(tok: Tokenizer, chat_template: str) -> dict:
    return {
        "backend": "tokenizers",
        "clean_up_tokenization_spaces": False,
        "eos_token": "<|endoftext|>",
        "pad_token": "<|endoftext|>",
        "extra_special_tokens": ADDED_TOKENS,
        "model_max_length": 655380,
        "padding_side": "left",
        "processor_class": "Glm46VProcessor",
        "tokenizer_class": "TokenizersBackend",
        "chat_template": chat_template,
    }


def write_json(path: str, obj: dict) -> None:
    with open(path, "w") as f:
        json.dump(obj, f, indent=2, ensure_ascii=False)
        f.write("\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--tokenizer", help="a tokenizer.json with GLM-OCR's added tokens (default: the stand-in)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    transformers.utils.logging.disable_progress_bar()

    tok = Tokenizer.from_file(args.tokenizer) if args.tokenizer else build_tokenizer(LEARNED_VOCAB)
    config = tiny_config(tok)
    gen = torch.Generator().manual_seed(SEED)
    model = GlmOcrForConditionalGeneration(config).eval()
    with torch.no_grad():
        randomize(dict(model.named_parameters()), gen)
        extra = mtp_layer(model, gen)
    model.generation_config.do_sample = False
    model.generation_config.eos_token_id = config.text_config.eos_token_id
    model.generation_config.pad_token_id = config.text_config.pad_token_id

    os.makedirs(args.out_dir, exist_ok=True)
    model.to(torch.bfloat16).save_pretrained(args.out_dir, max_shard_size="1MB")
    add_to_last_shard(args.out_dir, extra)

    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "chat_template.jinja")) as f:
        chat_template = f.read()
    tok.save(os.path.join(args.out_dir, "tokenizer.json"))
    write_json(os.path.join(args.out_dir, "tokenizer_config.json"), tokenizer_config(tok, chat_template))
    write_json(os.path.join(args.out_dir, "preprocessor_config.json"), PREPROCESSOR)


if __name__ == "__main__":
    main()
