"""Write golden files for the native engine from an exported checkpoint (layout: native/test/golden/README.md).

Re-run after every export that ships:
    /usr/bin/python3 golden.py ../assets/models/saccade-ocr-tiny ../native/test/golden
"""
import argparse
import json
import os
import subprocess

import numpy as np
import torch
from PIL import Image, ImageDraw, ImageFont

from saccade.checkpoint import load
from saccade.line_model import LineOCR
from saccade.decode import MtpDrafter, Region, causal, draft_mask, greedy_ar, mtp_spec, self_spec
from saccade.mtp import DRAFTS as MTP_DRAFTS
from saccade.sequence import text_positions
from saccade.vocab import MASK, PROMPTS

GOLDEN_SEED_BASE = 2_000_000_000  # outside training and evaluation seeds
# A line no Latin decoder can write: the engine writes it from the encoder's own reading.
FOREIGN_LINE = "東京駅から新幹線で大阪へ行きます，运费为 120 元。"
MAX_PIXELS = {"text": 48 * 500, "formula": 80 * 500, "table": 200 * 450}
MAX_LINE_COLUMNS = 64


def pick_region(model, generate, kind):
    """The first region of `kind` from a fixed seed whose image is small enough to keep goldens small: a line
    model's also in columns, each of which stores a row of CTC logits over the encoder's classes."""
    for seed in range(GOLDEN_SEED_BASE, GOLDEN_SEED_BASE + 500):
        region = generate(seed, kind=kind)
        if region.image.size > MAX_PIXELS[kind] or region.image.shape[1] < 150:
            continue
        if not isinstance(model, LineOCR) or model.image_grid(model.prepare(region.image))[1] <= MAX_LINE_COLUMNS:
            return seed, region
    raise RuntimeError(f"no small {kind} region in 500 seeds")


def write_f32(out_dir, name, tensor):
    arr = np.ascontiguousarray(tensor.detach().to(torch.float32).numpy(), dtype="<f4")
    arr.tofile(os.path.join(out_dir, name + ".f32"))
    return {"file": name + ".f32", "dtype": "float32", "shape": list(arr.shape)}


@torch.no_grad()
def region_golden(model, image, kind, out_dir, name, max_new):
    entry = {"kind": kind, "prompt_token_id": PROMPTS[kind]}
    img = np.ascontiguousarray(image, dtype=np.uint8)
    img.tofile(os.path.join(out_dir, f"{name}.image.u8"))
    entry["image"] = {"file": f"{name}.image.u8", "dtype": "uint8", "shape": list(img.shape)}
    pixels = model.prepare(img)
    # A line model's input is the grey line repeated in its three channels: one of them is the whole input.
    entry["pixels"] = write_f32(out_dir, f"{name}.pixels", pixels[0, 0] if pixels.dim() == 4 else pixels)
    if hasattr(model, "encoder"):
        out = model.encoder(pixels)
        for key in ("backbone", "neck", "ctc_logits"):
            entry[f"line_{key}"] = write_f32(out_dir, f"{name}.line_{key}", out[key][0])
    region = Region(model, pixels, PROMPTS[kind])
    entry["image_embeds"] = write_f32(out_dir, f"{name}.image_embeds", region.image_embeds)
    entry["prefix_length"] = region.cache.length
    entry["first_text_position"] = region.next_pos
    entry["prefill_last_logits"] = write_f32(out_dir, f"{name}.prefill_last_logits", region.prefill_logits)

    first = int(region.prefill_logits.argmax())
    entry["first_token"] = first
    # Draft forward right after the prefill: [c, MASK x B] with c = the greedy first token, uncached.
    B = model.config["diffusion_block_size"]
    draft, _ = region.forward([first] + [MASK] * B, region.next_pos, draft_mask(1, B), commit=0)
    entry["draft_input_ids"] = [first] + [MASK] * B
    entry["draft_logits"] = write_f32(out_dir, f"{name}.draft_logits", draft)
    # AR step: feed c alone (causal); its logits equal row 0 of the draft forward up to rounding.
    step, _ = region.forward([first], region.next_pos, causal(1), commit=0)
    entry["ar_step_input_id"] = first
    entry["ar_step_logits"] = write_f32(out_dir, f"{name}.ar_step_logits", step[0])

    ar = greedy_ar(Region(model, pixels, PROMPTS[kind]), max_new=max_new)
    spec = self_spec(Region(model, pixels, PROMPTS[kind]), block_size=B, max_new=max_new)
    entry["greedy_ar_ids"] = ar.ids
    entry["self_spec_ids"] = spec.ids
    entry["self_spec_round_commits"] = spec.rounds
    if model.mtp is not None:
        entry["mtp_draft_logits"] = write_f32(out_dir, f"{name}.mtp_draft_logits", mtp_first_drafts(model, pixels, kind))
        mtp = mtp_spec(Region(model, pixels, PROMPTS[kind]), drafts=MTP_DRAFTS, max_new=max_new)
        entry["mtp_spec_ids"] = mtp.ids
        entry["mtp_round_commits"] = mtp.rounds
    return entry



def cjk_font():
    """fontconfig's Simplified Chinese face of Noto Sans CJK (Debian's fonts-noto-cjk) as (file, face index), or None."""
    try:
        found = subprocess.run(["fc-match", "-f", "%{file}|%{index}", "Noto Sans CJK SC"], capture_output=True,
                               text=True, timeout=30).stdout
    except OSError:
        return None
    path, _, index = found.partition("|")
    return (path, int(index or 0)) if "NotoSansCJK" in path and os.path.exists(path) else None


def foreign_line(font):
    """A printed line of Chinese and Japanese (with digits) on a light ground, as a scan's line crop."""
    face = ImageFont.truetype(font[0], 30, index=font[1])
    left, top, right, bottom = face.getbbox(FOREIGN_LINE)
    image = Image.new("L", (right - left + 24, 48), 246)
    ImageDraw.Draw(image).text((12 - left, (48 - (bottom - top)) // 2 - top), FOREIGN_LINE, font=face, fill=24)
    return np.array(image)


def mtp_first_drafts(model, pixels, kind):
    """The head's logits for the first MTP_DRAFTS drafts [n, V]: its pass over the prefix (the prompt's row
    reads the greedy first token), then its chain on its own argmax guesses."""
    region = Region(model, pixels, PROMPTS[kind])
    head = MtpDrafter(region)
    first = int(region.prefill_logits.argmax())
    next_embeds = torch.cat([region.prefix_embeds[1:], model.embed(torch.tensor([[first]]))[0]])
    logits, out = head.step(region.prefix_hidden, next_embeds, region.prefix_pos, commit=len(next_embeds))
    rows = [logits[-1]]
    pos = region.next_pos
    while len(rows) < MTP_DRAFTS:
        guess = model.embed(torch.tensor([[int(rows[-1].argmax())]]))[0]
        logits, out = head.step(out[-1:], guess, text_positions(pos, 1), commit=1)
        rows.append(logits[-1])
        pos += 1
    return torch.stack(rows)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model_dir")
    p.add_argument("out_dir")
    p.add_argument("--max-new", type=int, default=64)
    args = p.parse_args()
    torch.set_num_threads(2)
    from saccade.synth import generate_region

    model = load(args.model_dir, torch.float32)
    os.makedirs(args.out_dir, exist_ok=True)
    index = {"model_dir": os.path.relpath(args.model_dir, args.out_dir), "compute_dtype": "float32",
             "weights": "fp16 from model.safetensors, widened to float32", "max_new_tokens": args.max_new,
             "regions": {}}
    for kind in ("text", "formula", "table"):
        seed, region = pick_region(model, generate_region, kind)
        name = f"{kind}"
        entry = region_golden(model, region.image, kind, args.out_dir, name, args.max_new)
        entry["seed"], entry["target"] = seed, region.target
        index["regions"][name] = entry
        print(name, region.image.shape, "ar", len(entry["greedy_ar_ids"]),
              "identical", entry["greedy_ar_ids"] == entry["self_spec_ids"])
    font = cjk_font()
    if isinstance(model, LineOCR) and font is not None:
        image = foreign_line(font)
        written = model.encoder_written(model.prepare(image))
        if written is not None:
            np.ascontiguousarray(image).tofile(os.path.join(args.out_dir, "foreign.image.u8"))
            index["written_by_encoder"] = {"foreign": {
                "kind": "text", "image": {"file": "foreign.image.u8", "dtype": "uint8", "shape": list(image.shape)},
                "printed": FOREIGN_LINE, "text": written}}
            print("foreign", image.shape, "encoder reads", written)
    with open(os.path.join(args.out_dir, "index.json"), "w") as f:
        json.dump(index, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
