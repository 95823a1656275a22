"""Fine-tunes a GLM-OCR folder into a dual-mode checkpoint (AR + masked block diffusion, BRIEF section 2).

Each sample is a region from our synthetic generator (saccade/synth) with its target Markdown, rendered
with GLM-OCR's own chat template and image processor, laid out as three streams (three_stream.py) and
trained with 0.5 AR + 0.5 diffusion loss in one forward. The mask token is the tokenizer's `[MASK]`
(GLM-OCR has one, id 59247, so no row is added); a tokenizer without one gets it appended. The saved folder
is an ordinary GLM-OCR folder plus `saccade_dual_mode` in config.json (mask id, block size, label
convention), with the MTP layer written back under `model.language_model.layers.{n}.*` and its shared
head and embedding re-copied from the fine-tuned trunk (the engine requires them byte-equal). The MTP
layer's own weights are not trained here. docs/glm-ocr.md, section 12, has the full-scale command.

    nice -n 19 /opt/t3/bin/python training/glm_ocr/convert_dual.py SRC_FOLDER OUT_FOLDER --steps 10
"""
import argparse
import json
import os
import random
import shutil
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F
import transformers
from PIL import Image
from safetensors import safe_open
from transformers import GlmOcrForConditionalGeneration

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from make_goldens import TASKS, load_processor  # noqa: E402
from saccade.masks import IGNORE  # noqa: E402
from saccade.synth.regions import generate_region  # noqa: E402
from three_stream import stream_positions, three_stream  # noqa: E402

MASK_TOKEN = "[MASK]"
STATE_FILE = "training_state.pt"  # fp32 weights, optimizer and step; delete once the run is final
FOLDER_FILES = ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "preprocessor_config.json")


def ensure_mask_token(processor, model) -> tuple[int, bool]:
    """The mask token's id and whether it was added: appended to the tokenizer (and the embedding, if it
    has no spare row) when the checkpoint has none. Its embedding row is learned like every other weight."""
    tok = processor.tokenizer
    mask_id = tok.convert_tokens_to_ids(MASK_TOKEN)
    if mask_id is not None and mask_id != tok.unk_token_id:
        return mask_id, False
    tok.add_special_tokens({"additional_special_tokens": [MASK_TOKEN]})
    mask_id = tok.convert_tokens_to_ids(MASK_TOKEN)
    if mask_id >= model.get_input_embeddings().weight.shape[0]:
        model.resize_token_embeddings(mask_id + 1)
    return mask_id, True


class RegionSamples(torch.utils.data.Dataset):
    """Sample k is generate_region(seed + k), processed as GLM-OCR's processor does for inference."""

    def __init__(self, folder, seed, first, count, max_target_tokens):
        self.folder, self.seed, self.first, self.count = folder, seed, first, count
        self.max_target_tokens = max_target_tokens
        self.processor = None  # built per worker

    def __len__(self):
        return self.count

    def __getitem__(self, k):
        if self.processor is None:
            self.processor = load_processor(self.folder)
        index = self.first + k
        region = generate_region(self.seed + index)
        image = Image.fromarray(region.image).convert("RGB")
        messages = [{"role": "user", "content": [{"type": "image", "image": image},
                                                 {"type": "text", "text": TASKS[region.kind]}]}]
        rendered = self.processor.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        inputs = self.processor(text=[rendered], images=[image], return_tensors="pt")
        target = self.processor.tokenizer(region.target, add_special_tokens=False)["input_ids"]
        return {"index": index, "input_ids": inputs["input_ids"][0], "mm_token_type_ids": inputs["mm_token_type_ids"],
                "pixel_values": inputs["pixel_values"], "image_grid_thw": inputs["image_grid_thw"],
                "target": target[:self.max_target_tokens]}


def lay_out(model, samples, mask_id, eos_id, block_size, seed):
    """Processed samples -> one padded batch of three-stream sequences. Padding rows attend to themselves
    only and carry no labels; each sample's masking draws from a generator seeded by its index."""
    rows = []
    for s in samples:
        ids = s["input_ids"][None]
        positions, _ = model.model.get_rope_index(ids, s["mm_token_type_ids"], image_grid_thw=s["image_grid_thw"])
        gen = torch.Generator().manual_seed(seed * 1_000_003 + s["index"])
        layout = three_stream(ids.shape[1], s["target"], block_size, mask_id, eos_id, gen)
        layout["input_ids"] = torch.cat([ids[0], layout["stream_ids"]])
        layout["positions"] = stream_positions(positions[:, 0], layout["stream_len"])
        rows.append(layout)
    B, T = len(rows), max(len(r["input_ids"]) for r in rows)
    batch = {"input_ids": torch.full((B, T), eos_id), "positions": torch.zeros(3, B, T, dtype=torch.long),
             "attn": torch.eye(T, dtype=torch.bool).repeat(B, 1, 1), "ar_labels": torch.full((B, T), IGNORE),
             "diff_labels": torch.full((B, T), IGNORE)}
    for b, r in enumerate(rows):
        n = len(r["input_ids"])
        batch["input_ids"][b, :n] = r["input_ids"]
        batch["positions"][:, b, :n] = r["positions"]
        batch["attn"][b, :n, :n] = r["attn"]
        batch["ar_labels"][b, :n] = r["ar_labels"]
        batch["diff_labels"][b, :n] = r["diff_labels"]
    batch["pixel_values"] = torch.cat([s["pixel_values"] for s in samples])
    batch["image_grid_thw"] = torch.cat([s["image_grid_thw"] for s in samples])
    return batch


def three_stream_loss(model, batch, ar_weight=0.5):
    """(total, ar, diffusion). The LM head runs only on rows that carry a label: at full scale the
    [B, T, 59392] logits would otherwise be the largest tensor of the step."""
    batch = {k: v.to(model.device) for k, v in batch.items()}
    embeds = model.get_input_embeddings()(batch["input_ids"])
    with torch.set_grad_enabled(torch.is_grad_enabled() and model.model.visual.patch_embed.proj.weight.requires_grad):
        image = torch.cat(model.model.get_image_features(batch["pixel_values"], batch["image_grid_thw"]).pooler_output)
    is_image = (batch["input_ids"] == model.config.image_token_id)[..., None]
    embeds = embeds.masked_scatter(is_image.expand_as(embeds), image.to(embeds.dtype))
    # A 4-D boolean mask is used as given (True = attend) by transformers' SDPA attention.
    hidden = model.model.language_model(inputs_embeds=embeds, attention_mask=batch["attn"][:, None],
                                        position_ids=batch["positions"], use_cache=False).last_hidden_state
    losses = []
    for labels in (batch["ar_labels"], batch["diff_labels"]):
        rows = labels != IGNORE
        logits = model.lm_head(hidden[rows]).float()
        losses.append(F.cross_entropy(logits, labels[rows]))
    ar, diff = losses
    return ar_weight * ar + (1 - ar_weight) * diff, ar, diff


def mtp_tensors(folder, n_layers):
    """The MTP layer's tensors as stored (transformers skips them on load), in their own dtype."""
    index = os.path.join(folder, "model.safetensors.index.json")
    files = sorted(set(json.load(open(index))["weight_map"].values())) if os.path.exists(index) else ["model.safetensors"]
    prefix, out = f"model.language_model.layers.{n_layers}.", {}
    for name in files:
        with safe_open(os.path.join(folder, name), "pt") as f:
            out.update({k: f.get_tensor(k) for k in f.keys() if k.startswith(prefix)})
    return out


def export(model, processor, src, out_dir, mtp, mask_id, mask_added, block_size, max_shard_size):
    """Writes the dual-mode folder in bfloat16; the MTP layer's shared copies follow the trained trunk."""
    n = model.config.text_config.num_hidden_layers
    state = {k: v.detach().to(torch.bfloat16) for k, v in model.state_dict().items()}
    prefix = f"model.language_model.layers.{n}."
    for k, v in mtp.items():
        state[k] = v.to(torch.bfloat16)
    if mtp:
        state[prefix + "embed_tokens.weight"] = state["model.language_model.embed_tokens.weight"].clone()
        state[prefix + "shared_head.head.weight"] = state["lm_head.weight"].clone()
    model.config.saccade_dual_mode = {
        "mask_token_id": mask_id, "block_size": block_size,
        "diffusion_predicts": "own position",  # a masked slot predicts its own token, AR the next one
        "mask_attention": "bidirectional within a block, causal to earlier blocks",
    }
    model.config.dtype = "bfloat16"
    model.save_pretrained(out_dir, state_dict=state, max_shard_size=max_shard_size)
    for name in FOLDER_FILES:
        if os.path.exists(os.path.join(src, name)):
            shutil.copy(os.path.join(src, name), os.path.join(out_dir, name))
    if mask_added:
        processor.tokenizer.save_pretrained(out_dir)  # the copied tokenizer lacks the token


def load_model(folder, attn="sdpa"):
    transformers.utils.logging.set_verbosity_error()  # the MTP layer is an "unexpected key" to transformers
    return GlmOcrForConditionalGeneration.from_pretrained(folder, dtype=torch.float32, attn_implementation=attn)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src", help="a GLM-OCR folder (zai-org/GLM-OCR or the tiny one)")
    ap.add_argument("out", help="the dual-mode folder to write (also holds the resumable training state)")
    ap.add_argument("--steps", type=int, default=10000)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-5)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--block-size", type=int, default=32)
    ap.add_argument("--max-target-tokens", type=int, default=1024)
    ap.add_argument("--seed", type=int, default=230000, help="region seeds are seed + sample index")
    ap.add_argument("--train-vision", action="store_true",
                    help="also train the vision tower (default frozen: the conversion changes how the decoder "
                         "attends, not what the image says)")
    ap.add_argument("--grad-checkpointing", action="store_true")
    ap.add_argument("--workers", type=int, default=4, help="data worker processes (0: in the main process)")
    ap.add_argument("--time-budget-min", type=float, default=0, help="save and stop after this long (0: none)")
    ap.add_argument("--save-every", type=int, default=500)
    ap.add_argument("--max-shard-size", default="2GB")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    return ap.parse_args(argv)


def main(argv=None) -> None:
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    np.random.seed(args.seed % 2**32)
    os.makedirs(args.out, exist_ok=True)
    processor = load_processor(args.src)
    model = load_model(args.src).to(args.device)
    mask_id, mask_added = ensure_mask_token(processor, model)
    eos_id = model.config.text_config.eos_token_id
    eos_id = eos_id[0] if isinstance(eos_id, list) else eos_id
    mtp = mtp_tensors(args.src, model.config.text_config.num_hidden_layers)
    if not args.train_vision:
        model.model.visual.requires_grad_(False)
    if args.grad_checkpointing:
        model.gradient_checkpointing_enable()
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    optim = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.0, betas=(0.9, 0.95))
    schedule = torch.optim.lr_scheduler.LambdaLR(optim, lambda s: min(1.0, (s + 1) / args.warmup))

    step, state_path = 0, os.path.join(args.out, STATE_FILE)
    if os.path.exists(state_path):
        state = torch.load(state_path, map_location=args.device, weights_only=False)
        model.load_state_dict(state["model"])
        optim.load_state_dict(state["optim"])
        schedule.load_state_dict(state["schedule"])
        step = state["step"]
        print(f"resumed at step {step}")

    def save_state():
        torch.save({"model": model.state_dict(), "optim": optim.state_dict(), "schedule": schedule.state_dict(),
                    "step": step, "args": vars(args)}, state_path)

    data = RegionSamples(args.src, args.seed, step * args.batch, max(0, args.steps - step) * args.batch,
                         args.max_target_tokens)
    loader = torch.utils.data.DataLoader(data, batch_size=args.batch, collate_fn=list, num_workers=args.workers)
    autocast = torch.autocast("cuda", dtype=torch.bfloat16, enabled=args.device.startswith("cuda"))
    t0 = time.time()
    for samples in loader:
        batch = lay_out(model, samples, mask_id, eos_id, args.block_size, args.seed)
        with autocast:
            loss, ar, diff = three_stream_loss(model, batch)
        optim.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optim.step()
        schedule.step()
        step += 1
        elapsed = time.time() - t0
        print(json.dumps({"step": step, "loss": round(loss.item(), 4), "ar": round(ar.item(), 4),
                          "diffusion": round(diff.item(), 4), "seconds": round(elapsed, 1)}), flush=True)
        over = args.time_budget_min and elapsed > args.time_budget_min * 60
        if step % args.save_every == 0 or over:
            save_state()
        if over:
            print(f"time budget spent at step {step}; rerun the same command to resume")
            break
    save_state()
    export(model, processor, args.src, args.out, mtp, mask_id, mask_added, args.block_size, args.max_shard_size)


if __name__ == "__main__":
    main()
