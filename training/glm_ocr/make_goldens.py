"""Writes the engine's GLM-OCR golden files from the tiny folder, with transformers as the reference.

For five generated images (sizes and aspect ratios chosen to hit each branch of smart_resize) and the
three task prompts: the image processor's output, the vision tower's intermediate and merged features,
the rendered prompt and its ids, the 3-D positions, the logits of the prefill's last row and of eight
greedy AR steps, sixteen greedy ids; and our MTP reference's logits over the same sequence. All in float32
from the bfloat16 weights (docs/glm-ocr.md, "Goldens"). Layout and tolerances: the README beside them.

    nice -n 19 /opt/t3/bin/python training/glm_ocr/make_goldens.py native/test/golden/glm_ocr
"""
import argparse
import json
import os
import sys

import numpy as np
import torch
import transformers
from PIL import Image, ImageDraw, ImageFont
from transformers import AutoImageProcessor, AutoTokenizer, GlmOcrForConditionalGeneration
from transformers.models.glm46v import Glm46VProcessor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_mtp import MtpLayer  # noqa: E402

TASKS = {"text": "Text Recognition:", "table": "Table Recognition:", "formula": "Formula Recognition:"}
MTP_TASK = "text"
GREEDY_STEPS = 16
AR_LOGIT_STEPS = 8
MTP_DRAFTS = 4


class StillImageProcessor(Glm46VProcessor):
    """Glm46VProcessor without its video processor, whose class needs torchvision; images only."""

    def __init__(self, image_processor=None, tokenizer=None, chat_template=None, **kwargs):
        super().__init__(image_processor, tokenizer, None, chat_template=chat_template, **kwargs)


def load_processor(folder: str) -> StillImageProcessor:
    tokenizer = AutoTokenizer.from_pretrained(folder)
    return StillImageProcessor(AutoImageProcessor.from_pretrained(folder), tokenizer, tokenizer.chat_template)


def _text(size, lines, seed, background=(250, 248, 240)):
    rng = np.random.RandomState(seed)
    img = Image.new("RGB", size, background)
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default()
    for i, line in enumerate(lines):
        draw.text((4, 4 + 12 * i), line, fill=(20, 20, 30), font=font)
    noisy = np.asarray(img).astype(np.int16) + rng.randint(-12, 13, (size[1], size[0], 3))
    return np.clip(noisy, 0, 255).astype(np.uint8)


def images() -> dict:
    """name -> (h, w, 3) uint8. Sizes against the tiny limits (6272..25088 pixels over two frames):
    line 40x100 needs no bounds; small 20x30 is below one 28-pixel block and below min_pixels; page
    180x240 is above max_pixels; tall 150x60 is 5 x 2 blocks; half 42x70 sits on round()'s .5 ties."""
    rng = np.random.RandomState(7)
    ys, xs = np.mgrid[0:150, 0:60]
    tall = np.stack([ys * 255 // 149, xs * 255 // 59, (ys + xs) % 256], -1).astype(np.uint8)
    tall[60:90] = _text((60, 30), ["0123"], 3)
    half = ((np.indices((42, 70)).sum(0) // 7) % 2 * 200 + 30).astype(np.uint8)
    return {
        "line": _text((100, 40), ["Invoice 42", "Total 9.50"], 1),
        "small": rng.randint(0, 256, (20, 30, 3)).astype(np.uint8),
        "page": _text((240, 180), [f"Row {i}: {i * 17 % 97} items, {i * 3.25:.2f} EUR" for i in range(14)], 2),
        "tall": tall,
        "half": np.repeat(half[..., None], 3, -1),
    }


class GoldenWriter:
    def __init__(self, out_dir: str):
        self.out_dir = out_dir
        os.makedirs(out_dir, exist_ok=True)

    def array(self, name: str, a) -> dict:
        a = np.ascontiguousarray(a.detach().numpy() if torch.is_tensor(a) else a)
        kind = {np.dtype(np.float32): "f32", np.dtype(np.uint8): "u8"}[a.dtype]
        file = f"{name}.{kind}"
        a.astype(a.dtype.newbyteorder("<")).tofile(os.path.join(self.out_dir, file))
        return {"file": file, "dtype": {"f32": "float32", "u8": "uint8"}[kind], "shape": list(a.shape)}


def capture_vision(model, pixel_values, grid) -> dict:
    """The tower's stages for one image, recorded with forward hooks on the real modules."""
    visual, seen = model.model.visual, {}
    hooks = [getattr(visual, name).register_forward_hook(lambda m, i, o, name=name: seen.__setitem__(name, o))
             for name in ("patch_embed", "post_layernorm", "downsample", "merger")]
    try:
        merged = torch.cat(model.model.get_image_features(pixel_values, grid).pooler_output)
    finally:
        for h in hooks:
            h.remove()
    assert torch.equal(merged, seen["merger"])
    return {
        "vision_patch_embeds": seen["patch_embed"],  # [P, vision hidden], P in processor (merge-block) order
        "vision_post_layernorm": seen["post_layernorm"],  # after the blocks and post_layernorm
        "vision_downsample": seen["downsample"].flatten(1),  # [P / 4, out_hidden_size]
        "image_embeds": merged,  # after the patch merger: the rows that replace the <|image|> tokens
    }


def greedy(model, inputs: dict, steps: int):
    """Prefill, then greedy AR steps with the KV cache; positions come from the model (get_rope_index in
    the prefill, the stored rope delta after it). Returns ids, the logits before each id, the trunk's final
    hidden states of every row fed and the input embeddings of those rows."""
    model.model.rope_deltas = None
    embeds = []
    hook = model.model.language_model.register_forward_pre_hook(
        lambda m, args, kw: embeds.append(kw["inputs_embeds"][0]), with_kwargs=True)
    try:
        out = model.model(**inputs, use_cache=True)
        hidden, cache = [out.last_hidden_state[0]], out.cache
        logits = [model.lm_head(out.last_hidden_state[0, -1])]
        ids = [int(logits[-1].argmax())]
        for _ in range(steps - 1):
            out = model.model(input_ids=torch.tensor([ids[-1:]]), cache=cache, use_cache=True)
            hidden.append(out.last_hidden_state[0])
            logits.append(model.lm_head(out.last_hidden_state[0, -1]))
            ids.append(int(logits[-1].argmax()))
    finally:
        hook.remove()
    return ids, torch.stack(logits), torch.cat(hidden), torch.cat(embeds)


def top2_margin(logits: torch.Tensor) -> float:
    top = logits.topk(2, dim=-1).values
    return float((top[..., 0] - top[..., 1]).min())


def mtp_goldens(mtp: MtpLayer, positions, hidden, embeds, prompt_len: int) -> dict:
    """Row i of the MTP reads the trunk's hidden state of row i and the input embedding of row i + 1.
    `logits`: the MTP over rows 0 .. prompt_len + 6 (the prompt, then the greedy tokens 0..6 as fed),
    rows prompt_len - 1 .. prompt_len + 6 kept: row prompt_len - 1 + j predicts greedy id j + 1.
    `draft_logits`: a chain from the prompt's last row, each step reading its own output and argmax."""
    rows = prompt_len + AR_LOGIT_STEPS - 1
    last = positions[:, -1:]
    text_positions = last + torch.arange(1, rows - prompt_len + 1)  # the fed greedy tokens, t = h = w
    pos = torch.cat([positions, text_positions], dim=1)
    mtp.reset()
    _, logits = mtp(hidden[:rows], embeds[1:rows + 1], pos[:, :rows])

    mtp.reset()
    y, first = mtp(hidden[:prompt_len], embeds[1:prompt_len + 1], positions)
    draft_logits, draft_ids = [first[-1]], [int(first[-1].argmax())]
    y = y[-1:]
    for k in range(1, MTP_DRAFTS):
        y, step = mtp(y, mtp.embed(torch.tensor(draft_ids[-1:])), last + k)
        draft_logits.append(step[0])
        draft_ids.append(int(step[0].argmax()))
    return {"logits": logits[prompt_len - 1:], "draft_logits": torch.stack(draft_logits), "draft_ids": draft_ids}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir", help="where the goldens go; the checkpoint is read from OUT_DIR/tiny")
    ap.add_argument("--model-dir", help="default: OUT_DIR/tiny")
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    transformers.utils.logging.set_verbosity_error()  # the MTP layer is an "unexpected key" to transformers
    transformers.utils.logging.disable_progress_bar()

    model_dir = args.model_dir or os.path.join(args.out_dir, "tiny")
    processor = load_processor(model_dir)
    model = GlmOcrForConditionalGeneration.from_pretrained(model_dir, dtype=torch.float32,
                                                           attn_implementation="eager").eval()
    model_bf16 = GlmOcrForConditionalGeneration.from_pretrained(model_dir, dtype=torch.bfloat16,
                                                                attn_implementation="eager").eval()
    mtp = MtpLayer(model_dir)
    writer = GoldenWriter(args.out_dir)
    ip = processor.image_processor
    index = {
        "model_dir": os.path.relpath(model_dir, args.out_dir),
        "reference": f"transformers {transformers.__version__} GlmOcrForConditionalGeneration, eager attention;"
                     " MTP: training/glm_ocr/reference_mtp.py",
        "image_processor": f"{type(ip).__name__} (Pillow {Image.__version__} bicubic)",
        "compute_dtype": "float32",
        "weights": "bfloat16 in the safetensors, widened to float32",
        "tasks": TASKS,
        "greedy": "argmax over all vocab_size logits, no stop at EOS, no logits processors",
        "cases": {},
    }
    margins, bf16_abs, bf16_rel = [], [], []
    with torch.no_grad():
        for name, pixels in images().items():
            image = Image.fromarray(pixels)
            feats = ip(images=[image], return_tensors="pt")
            grid = feats["image_grid_thw"]
            case = {"image": writer.array(f"{name}.image", pixels), "image_grid_thw": grid[0].tolist()}
            h, w = int(grid[0, 1]) * ip.patch_size, int(grid[0, 2]) * ip.patch_size
            case["resized"] = writer.array(f"{name}.resized", np.asarray(image.resize((w, h), Image.BICUBIC)))
            case["pixel_values"] = writer.array(f"{name}.pixel_values", feats["pixel_values"])
            for key, t in capture_vision(model, feats["pixel_values"], grid).items():
                case[key] = writer.array(f"{name}.{key}", t)

            case["tasks"] = {}
            for task, prompt in TASKS.items():
                messages = [{"role": "user", "content": [{"type": "image", "image": image},
                                                         {"type": "text", "text": prompt}]}]
                rendered = processor.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
                inputs = processor(text=[rendered], images=[image], return_tensors="pt")
                assert torch.equal(inputs["pixel_values"], feats["pixel_values"])
                positions, delta = model.model.get_rope_index(
                    inputs["input_ids"], inputs["mm_token_type_ids"], image_grid_thw=grid)
                ids, logits, hidden, embeds = greedy(model, dict(inputs), GREEDY_STEPS)
                margins.append(top2_margin(logits))
                bf16_logits = model_bf16(**inputs).logits[0, -1].float()
                bf16_abs.append(float((bf16_logits - logits[0]).abs().max()))
                bf16_rel.append(bf16_abs[-1] / float(logits[0].abs().max()))

                stem = f"{name}.{task}"
                entry = {
                    "prompt": rendered,
                    "input_ids": inputs["input_ids"][0].tolist(),
                    "position_ids": positions[:, 0].tolist(),
                    "rope_delta": int(delta[0, 0]),
                    "prefill_last_logits": writer.array(f"{stem}.prefill_last_logits", logits[0]),
                    "ar_step_logits": writer.array(f"{stem}.ar_step_logits", logits[1:AR_LOGIT_STEPS + 1]),
                    "greedy_ids": ids,
                }
                if task == MTP_TASK:
                    m = mtp_goldens(mtp, positions[:, 0], hidden, embeds, len(entry["input_ids"]))
                    entry["mtp"] = {
                        "logits": writer.array(f"{stem}.mtp_logits", m["logits"]),
                        "draft_logits": writer.array(f"{stem}.mtp_draft_logits", m["draft_logits"]),
                        "draft_ids": m["draft_ids"],
                    }
                case["tasks"][task] = entry
            index["cases"][name] = case
    index["checks"] = {
        "min_greedy_top2_margin": min(margins),
        "bf16_compute_prefill_logits_max_abs_diff": max(bf16_abs),
        "bf16_compute_prefill_logits_max_diff_over_max_logit": max(bf16_rel),
    }
    with open(os.path.join(args.out_dir, "index.json"), "w") as f:
        json.dump(index, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
